// Operations whose settings are missing (operations.yaml `requires:`): listed as unavailable, refused with 503
// OPERATION_UNAVAILABLE before any price, hold or plugin run, in the caller's language, with no env variable
// name in the answer; the operator reads what to set in the log and on the admin page.
import t from 'tap';
import { availabilityOf, missingSettingsText } from '../../core/config/availability.js';
import { admin, consoleUser } from '../console/support.js';
import { createTestApp, type TestApp } from '../helpers/create-test-app.js';

const YAML = `
operations:
  - code: needs_secret
    name: { zh: 需要密钥, en: Needs a secret }
    description: { zh: 未配置的接口, en: An operation whose provider is not configured }
    plugin: echo
    price_per_call: 0.01
    input: { type: object, properties: { msg: { type: string } } }
    options:
      secret: "\${TG_UNAVAILABLE_TEST_UNSET}"
      other: ""
    requires: [[secret], [other, secret]]
  - code: configured
    name: Configured
    plugin: echo
    price_per_call: 0.01
    input: { type: object, properties: { msg: { type: string } } }
    options: { secret: "\${TG_UNAVAILABLE_TEST_SET}" }
    requires: [[secret]]
`;

let h: TestApp;
t.before(async () => {
  delete process.env.TG_UNAVAILABLE_TEST_UNSET;
  process.env.TG_UNAVAILABLE_TEST_SET = 'configured-value';
  h = await createTestApp({ operationsYaml: YAML });
});
t.afterEach(() => h.assertReconciled());
t.teardown(() => h.close());

const EN = 'This operation is not available on this server yet. Nothing was charged.';
const ZH = '此接口暂未开通，暂时无法使用。本次未扣费。';

t.test('a call to an unconfigured operation: 503, nothing held, charged or run; exact body', async (t) => {
  const u = await h.user('1');
  const before = await h.ledger(u.userId);
  const res = await h.client.get('/api/needs_secret?msg=hi', { 'X-API-Key': u.key });
  t.equal(res.status, 503);
  t.same(res.body, {
    success: false,
    error: { code: 'OPERATION_UNAVAILABLE', message: EN },
    deducted: 0,
    remaining: 1,
    request_id: res.body.request_id,
  });
  t.notMatch(JSON.stringify(res.body), /TG_UNAVAILABLE|secret/);
  t.same(await h.ledger(u.userId), before, 'no ledger row');
  t.same(before, [
    { amount: 1_000_000, kind: 'grant', ref: `test-grant:${u.userId}`, balance_after: 1_000_000, operation: null },
  ]);
  t.same(await h.balance(u.userId), { balance: 1_000_000, held: 0 });
  const holds = await h.services.store.db.selectFrom('holds').selectAll().where('user_id', '=', u.userId).execute();
  t.same(holds, [], 'no hold was ever taken');
  const log = await h.callLog(u.userId);
  t.match(log, [{ operation: 'needs_secret', status: 503, error_code: 'OPERATION_UNAVAILABLE', charged: 0 }]);
  t.equal(log[0].plugin_ms, null, 'the plugin never ran');
});

t.test('the message follows Accept-Language: zh, en, and English when neither is named', async (t) => {
  const u = await h.user('1');
  const zh = await h.client.get('/api/needs_secret', {
    'X-API-Key': u.key,
    'Accept-Language': 'zh-CN,zh;q=0.9,en;q=0.8',
  });
  t.same(zh.body.error, { code: 'OPERATION_UNAVAILABLE', message: ZH });
  const en = await h.client.get('/api/needs_secret', { 'X-API-Key': u.key, 'Accept-Language': 'en-GB' });
  t.same(en.body.error, { code: 'OPERATION_UNAVAILABLE', message: EN });
  const fr = await h.client.get('/api/needs_secret', { 'X-API-Key': u.key, 'Accept-Language': 'fr' });
  t.equal(fr.body.error.message, EN);
  // A specific English detail is kept after the Chinese text.
  const bad = await h.client.get('/api/no_such_op', { 'X-API-Key': u.key, 'Accept-Language': 'zh' });
  t.equal(bad.status, 404);
  t.equal(bad.body.error.message, '没有接口 “no_such_op”。全部接口见 GET /console/api/operations。');
  // Console errors too.
  const anon = await h.client.get('/console/api/me', { 'Accept-Language': 'zh' });
  t.same(anon.body.error, {
    code: 'UNAUTHORIZED',
    message: '请先登录：以 Authorization: Bearer ut_... 发送有效的用户令牌。',
  });
  t.same(await h.balance(u.userId), { balance: 1_000_000, held: 0 });
});

t.test('a configured operation with requires: runs and is charged', async (t) => {
  const u = await h.user('1');
  const res = await h.client.get('/api/configured?msg=hi', { 'X-API-Key': u.key });
  t.equal(res.status, 200);
  t.equal(res.body.deducted, 0.01);
  t.same(await h.balance(u.userId), { balance: 990_000, held: 0 });
});

t.test(
  'the catalogue marks it unavailable, with both languages; customers never see the missing settings',
  async (t) => {
    const res = await h.client.get('/console/api/operations');
    const byCode = Object.fromEntries((res.body.operations as Array<Record<string, unknown>>).map((o) => [o.code, o]));
    t.match(byCode.needs_secret, {
      available: false,
      name: 'Needs a secret',
      text: {
        zh: { name: '需要密钥', description: '未配置的接口' },
        en: { name: 'Needs a secret', description: 'An operation whose provider is not configured' },
      },
    });
    t.match(byCode.configured, { available: true, text: { zh: { name: 'Configured' }, en: { name: 'Configured' } } });
    t.notMatch(JSON.stringify(res.body), /TG_UNAVAILABLE|missing/);
  },
);

t.test('the OpenAPI document marks it x-available false and says why calls fail', async (t) => {
  const doc = (await h.client.get('/openapi.json')).body;
  const get = doc.paths['/api/needs_secret'].get;
  t.equal(get['x-available'], false);
  t.match(
    get.description,
    /^\*\*Not available on this server\*\* \(not configured\): calls answer 503 OPERATION_UNAVAILABLE/,
  );
  t.match(get.responses['503'].description, /OPERATION_UNAVAILABLE/);
  t.equal(doc.paths['/api/configured'].get['x-available'], true);
  t.notMatch(doc.paths['/api/configured'].get.description, /Not available/);
  t.notMatch(JSON.stringify(doc), /TG_UNAVAILABLE/);
});

t.test('admin page data: per operation, available or which settings to set; admins only', async (t) => {
  const a = await admin(h);
  const res = await h.client.get('/console/api/admin/operations', a.headers);
  t.equal(res.status, 200);
  t.same(
    res.body.operations.map((o: Record<string, unknown>) => [o.code, o.available, o.missing]),
    [
      ['needs_secret', false, [['TG_UNAVAILABLE_TEST_UNSET'], ['options.other', 'TG_UNAVAILABLE_TEST_UNSET']]],
      ['configured', true, []],
    ],
  );
  t.equal((await h.client.get('/console/api/admin/operations')).status, 401);
  const u = await consoleUser(h);
  t.equal((await h.client.get('/console/api/admin/operations', u.headers)).status, 403);
});

t.test('the operator log says which operation is unavailable and what to set', async (t) => {
  const lines = h.logs.filter((l) => /operation unavailable/.test(String(l.message ?? l.msg)));
  t.match(lines, [
    {
      level: 'warn',
      operation: 'needs_secret',
      fix: 'set TG_UNAVAILABLE_TEST_UNSET, or options.other and TG_UNAVAILABLE_TEST_UNSET',
    },
  ]);
  t.equal(lines.length, 1, 'the configured operation is not mentioned');
});

t.test('availabilityOf: any group complete; empty, missing or unsubstituted values count as unset', async (t) => {
  t.same(availabilityOf(undefined, {}, {}), { available: true, missing: [] });
  t.same(availabilityOf([['a', 'b'], ['c']], { a: '${A}', b: 'lit', c: '${C:-}' }, { a: 'x', b: 'lit', c: '' }), {
    available: true,
    missing: [],
  });
  t.same(availabilityOf([['a', 'b'], ['c']], { a: '${A}', b: 'lit', c: '${C:-}' }, { a: '  ', b: 'lit', c: '' }), {
    available: false,
    missing: [['A'], ['C']],
  });
  t.same(availabilityOf([['n']], {}, { n: 5 }), { available: true, missing: [] });
  t.same(availabilityOf([['n']], { n: '${N}' }, { n: '${N}' }), { available: false, missing: [['N']] });
  t.equal(missingSettingsText({ available: false, missing: [['A', 'B'], ['C']] }), 'set A and B, or C');
});
