// A network failure at an upstream, through the whole gateway (real operations.yaml, the bundles in their isolates):
// the customer reads which step failed, wholly in their language, and never the host's own reason (host name,
// errno, address); the call is free; the operator's log line keeps that reason and the call log's class says
// "network".

import nock from 'nock';
import t, { type Test } from 'tap';
import { createShippedApp, type TestApp } from '../helpers/create-test-app.js';
import type { TestResponse } from '../helpers/http.js';

nock.disableNetConnect();
let h: TestApp;
t.before(async () => {
  h = await createShippedApp();
});
t.afterEach(async () => {
  nock.cleanAll();
  await h.assertReconciled();
});
t.teardown(() => h.close());

/** What no customer may read: the host names, the errno and the address of the refused connection. */
const OPERATOR_ONLY = /ENOTFOUND|ECONNREFUSED|getaddrinfo|kuaishou\.com|douyin\.com|1\.2\.3\.4|fetch failed/;

function get(path: string, key: string, lang: 'zh' | 'en') {
  return h.client.get(path, { 'X-API-Key': key, 'Accept-Language': lang === 'zh' ? 'zh-CN,zh;q=0.9' : 'en-US' });
}

/** The operator's line for the call: the plugin failure with its technical reason. */
function logLine(requestId: string) {
  return h.logs.find((l) => l.request_id === requestId && l.message === 'plugin failure');
}

/** A 502 naming the failed step in the caller's language, free, with nothing of the host's reason in it. */
function freeStepFailure(t: Test, res: TestResponse, c: { lang: string; message: string }) {
  t.equal(res.status, 502, c.lang);
  t.strictSame(
    res.body,
    {
      success: false,
      error: { code: 'UPSTREAM_FAILED', message: c.message },
      deducted: 0,
      remaining: 1,
      request_id: res.body.request_id,
    },
    c.lang,
  );
  t.notMatch(res.text, OPERATOR_ONLY, `${c.lang}: nothing of the host's reason in the answer`);
}

t.test('jiexi: Kuaishou short link host not found → 502 naming the step, free, reason logged', async (t) => {
  const u = await h.user('1');
  const cases = [
    { lang: 'en', code: '13x0AAa', message: 'Kuaishou short link request failed, please retry later' },
    { lang: 'zh', code: '13x0BBb', message: '快手短链接请求失败，请稍后重试' },
  ] as const;
  for (const c of cases) {
    nock('https://v.kuaishou.com')
      .get(`/${c.code}`)
      .replyWithError(
        Object.assign(new Error(`getaddrinfo ENOTFOUND v.kuaishou.com`), { code: 'ENOTFOUND', syscall: 'getaddrinfo' }),
      );
    const url = encodeURIComponent(`https://v.kuaishou.com/${c.code} 点击链接，打开【快手】直接观看！`);
    const res = await get(`/api/jiexi?url=${url}`, u.key, c.lang);
    freeStepFailure(t, res, c);
    t.match(logLine(res.body.request_id), {
      level: 'warn',
      operation: 'jiexi',
      plugin: 'jiexi',
      code: 'UPSTREAM_FAILED',
      caller_message: 'Kuaishou short link request failed, please retry later',
      reason: /^fetch failed: v\.kuaishou\.com: .*ENOTFOUND v\.kuaishou\.com/,
    });
  }
  t.same(await h.balance(u.userId), { balance: 1_000_000, held: 0 });
  t.same(
    (await h.ledger(u.userId)).map((r) => r.kind),
    ['grant'],
    'no ledger row beyond the grant',
  );
  const rows = await h.callLog(u.userId);
  t.same(
    rows.map((r) => [r.error_code, r.charged, r.failure_class]),
    [
      ['UPSTREAM_FAILED', 0, 'network'],
      ['UPSTREAM_FAILED', 0, 'network'],
    ],
    'the class is read from the operator reason',
  );
});

t.test('/api/parse (douyin): short link connection refused → 502, both languages, free', async (t) => {
  const u = await h.user('1');
  const cases = [
    { lang: 'en', code: 'iRNBho6Q', message: 'douyin: short link request failed' },
    { lang: 'zh', code: 'iRNBho7Q', message: '抖音：短链接请求失败' },
  ] as const;
  for (const c of cases) {
    nock('https://v.douyin.com')
      .get(`/${c.code}/`)
      .replyWithError(
        Object.assign(new Error('connect ECONNREFUSED 1.2.3.4:443'), { code: 'ECONNREFUSED', syscall: 'connect' }),
      );
    const res = await get(`/api/parse?url=${encodeURIComponent(`https://v.douyin.com/${c.code}/`)}`, u.key, c.lang);
    freeStepFailure(t, res, c);
    t.match(logLine(res.body.request_id), {
      level: 'warn',
      operation: 'douyin',
      code: 'UPSTREAM_FAILED',
      reason: /^fetch failed: v\.douyin\.com: .*ECONNREFUSED 1\.2\.3\.4:443/,
    });
  }
  t.same(await h.balance(u.userId), { balance: 1_000_000, held: 0 });
  t.same(
    (await h.ledger(u.userId)).map((r) => r.kind),
    ['grant'],
  );
});

t.test('/api/video/:id (douyin): slidesinfo and share page unreachable → 502 naming both steps, free', async (t) => {
  const u = await h.user('1');
  const id = '7400000000000000001';
  const refused = () =>
    Object.assign(new Error('connect ECONNREFUSED 1.2.3.4:443'), { code: 'ECONNREFUSED', syscall: 'connect' });
  nock('https://www.iesdouyin.com').get('/web/api/v2/aweme/slidesinfo/').query(true).replyWithError(refused());
  nock('https://www.iesdouyin.com').get(`/share/video/${id}`).replyWithError(refused());
  const res = await get(`/api/video/${id}`, u.key, 'en');
  t.equal(res.status, 502);
  t.strictSame(res.body.error, {
    code: 'UPSTREAM_FAILED',
    message: 'douyin: slidesinfo request failed; share page request failed',
  });
  t.notMatch(res.text, OPERATOR_ONLY);
  t.match(logLine(res.body.request_id), {
    reason:
      /^slidesinfo request failed: fetch failed: www\.iesdouyin\.com: .*ECONNREFUSED.*; share page request failed: fetch failed: www\.iesdouyin\.com: .*ECONNREFUSED/,
  });
  t.same(await h.balance(u.userId), { balance: 1_000_000, held: 0 });
});
