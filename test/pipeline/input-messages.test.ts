// A refused input, through the gateway with the shipped operations.yaml: the message names the parameter and says
// what is wrong in a sentence of the caller's language, never in Ajv's own words ("must match pattern ...",
// "must NOT have fewer than ..."); a format refusal quotes the parameter's own description. Nothing is charged.
import nock from 'nock';
import t from 'tap';
import { createShippedApp, type TestApp } from '../helpers/create-test-app.js';

nock.disableNetConnect();
let h: TestApp;
t.before(async () => {
  h = await createShippedApp();
});
t.afterEach(() => h.assertReconciled());
t.teardown(() => h.close());

const AJV_WORDS = /must match|must NOT|must have required|must be >=|must be string|pattern|\^/;

t.test('each refusal, exact, in zh and en; free', async (t) => {
  const u = await h.user('1');
  const cases: Array<[string, string, string]> = [
    [
      '/api/video/abc',
      "Invalid input for douyin: parameter 'id' has an invalid format (expected: numeric aweme id, 10-32 digits).",
      "douyin 的参数无效：参数 'id' 格式不正确（应为：作品 ID（aweme id），10 至 32 位数字）。",
    ],
    [
      '/api/jiexi?url=abc',
      "Invalid input for jiexi: parameter 'url' must be at least 8 characters long.",
      "jiexi 的参数无效：参数 'url' 至少 8 个字符。",
    ],
    [
      '/api/phone',
      "Invalid input for phone: missing required parameter 'phone'.",
      "phone 的参数无效：缺少必填参数 'phone'。",
    ],
    [
      `/api/phone?phone=${'1'.repeat(30)}`,
      "Invalid input for phone: parameter 'phone' must be at most 24 characters long.",
      "phone 的参数无效：参数 'phone' 最多 24 个字符。",
    ],
  ];
  for (const [path, en, zh] of cases) {
    for (const [lang, want] of [
      ['en', en],
      ['zh-CN', zh],
    ] as const) {
      const res = await h.client.get(path, { 'X-API-Key': u.key, 'Accept-Language': lang });
      t.strictSame(
        [res.status, res.body.error, res.body.deducted],
        [400, { code: 'INVALID_INPUT', message: want }, 0],
        `${path} ${lang}`,
      );
      t.notMatch(res.body.error.message, AJV_WORDS, `${path} ${lang}: no Ajv wording`);
    }
  }
  t.same(await h.balance(u.userId), { balance: 1_000_000, held: 0 });
  t.same(
    (await h.ledger(u.userId)).map((r) => r.kind),
    ['grant'],
  );
});
