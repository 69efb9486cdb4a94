// GET /api/_balance: balance, plan quota left and the key's limits with the sk_ key alone; free, unlogged;
// the same key checks as a call; and no operations.yaml entry can take the path.

import { readFileSync } from 'node:fs';
import t from 'tap';
import { parseOperationsConfig } from '../../core/config/operations-loader.js';
import { subscribe } from '../console/support.js';
import { createTestApp, type TestApp } from '../helpers/create-test-app.js';

let h: TestApp;
t.before(async () => {
  h = await createTestApp();
});
t.afterEach(() => h.assertReconciled());
t.teardown(() => h.close());

t.test(
  'answers balance, plan and key limits in the envelope; nothing charged, no ledger or call-log row',
  async (t) => {
    const u = await h.user('12.5', {
      allowed_codes: ['echo'],
      daily_spend_cap: 2_000_000,
      rate_limit_per_sec: 7,
      expires_at: Date.parse('2030-01-01T00:00:00Z'),
    });
    await subscribe(h, u.userId, 'basic');
    const ledgerBefore = await h.ledger(u.userId);
    const call = await h.client.get('/api/echo?msg=hi', { 'x-api-key': u.key });
    t.equal(call.status, 200);
    const res = await h.client.get('/api/_balance', { 'x-api-key': u.key });
    t.equal(res.status, 200);
    t.equal(res.headers['cache-control'], 'no-store');
    t.match(res.body.request_id, /^req_/);
    const { request_id: _r, ...rest } = res.body;
    t.same(rest.success, true);
    t.same(rest.deducted, 0);
    t.same(rest.cached, false);
    t.same(rest.remaining, 12.5); // the echo call was free inside the plan's quota
    t.same(rest.data.balance, 12.5);
    t.same(rest.data.available, 12.5);
    t.match(rest.data.plan, {
      id: 'basic',
      name: 'Basic',
      calls_per_day: 3,
      used_today: 1,
      remaining_today: 2,
      concurrency: 2,
      cache_free: true,
    });
    t.match(rest.data.plan.ends_at, /^\d{4}-\d\d-\d\dT/);
    t.same(rest.data.key, {
      id: u.keyId,
      expires_at: '2030-01-01T00:00:00.000Z',
      allowed_codes: ['echo'],
      ip_allow: null,
      rate_limit_per_sec: 7,
      rate_limit_burst: h.services.settings.rateLimitBurst,
      max_concurrency: h.services.settings.maxInFlightPerKey,
      daily_spend_cap: 2,
      spent_today: 0,
      spend_cap_remaining: 2,
    });
    t.same(await h.ledger(u.userId), [...ledgerBefore]);
    await h.services.callLog.flush();
    t.equal((await h.callLog(u.userId)).length, 1, 'only the echo call is in the call log');
  },
);

t.test('no plan: plan is null; the key may come in the query string', async (t) => {
  const u = await h.user(3);
  const res = await h.client.get(`/api/_balance?api_key=${u.key}`);
  t.equal(res.status, 200);
  t.same(res.body.data.plan, null);
  t.same(res.body.data.balance, 3);
  t.same(res.body.data.key.daily_spend_cap, null);
  t.same(res.body.data.key.spent_today, null);
});

t.test('key checks: missing 401, unknown 401, disabled 403, wrong IP 403; answers are envelopes', async (t) => {
  const none = await h.client.get('/api/_balance');
  t.equal(none.status, 401);
  t.same(none.body.error.code, 'MISSING_API_KEY');
  t.equal(none.body.success, false);
  const bad = await h.client.get('/api/_balance', { 'x-api-key': `sk_${'x'.repeat(43)}` });
  t.equal(bad.status, 401);
  t.equal(bad.body.error.code, 'INVALID_API_KEY');
  const u = await h.user(1, { ip_allow: ['203.0.113.0/24'] });
  const ip = await h.client.get('/api/_balance', { 'x-api-key': u.key });
  t.equal(ip.status, 403);
  t.equal(ip.body.error.code, 'IP_NOT_ALLOWED');
  t.notOk('remaining' in ip.body, 'a refused key does not read the balance');
  const v = await h.user(1);
  await h.services.store.db.updateTable('api_keys').set({ status: 'disabled' }).where('id', '=', v.keyId).execute();
  h.services.keys.invalidateUser(v.userId);
  const off = await h.client.get('/api/_balance', { 'x-api-key': v.key });
  t.equal(off.status, 403);
  t.equal(off.body.error.code, 'KEY_DISABLED');
  t.notOk('remaining' in off.body);
});

t.test('polling is capped per key: beyond the burst 429 RATE_LIMITED with Retry-After', async (t) => {
  const u = await h.user(1);
  const statuses: number[] = [];
  let last: Awaited<ReturnType<typeof h.client.get>> | undefined;
  for (let i = 0; i < 25; i++) {
    last = await h.client.get('/api/_balance', { 'x-api-key': u.key });
    statuses.push(last.status);
  }
  t.ok(statuses.slice(0, 20).every((s) => s === 200));
  t.equal(statuses[24], 429);
  t.equal(last!.body.error.code, 'RATE_LIMITED');
  t.ok(Number(last!.headers['retry-after']) >= 1);
});

t.test(
  'operations.yaml cannot take the path: a route under /api/_ and a code starting with _ are refused',
  async (t) => {
    const base = readFileSync('test/fixtures/operations.test.yaml', 'utf8');
    const withRoute = base.replace('  - code: echo\n', '  - code: echo\n    routes: [GET /api/_balance]\n');
    t.not(withRoute, base);
    t.throws(
      () => parseOperationsConfig('operations.yaml', withRoute, {}),
      /route GET \/api\/_balance would shadow a built-in path/,
    );
    const withCode = base.replace('  - code: echo\n', '  - code: _balance\n');
    t.throws(() => parseOperationsConfig('operations.yaml', withCode, {}), /code/);
  },
);

t.test('documented in /openapi.json', async (t) => {
  const res = await h.client.get('/openapi.json');
  t.equal(res.body.paths['/api/_balance'].get.operationId, 'balanceByKey');
});
