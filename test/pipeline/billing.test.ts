// Billing through the whole pipeline: a success charges exactly the price with one ledger row; every kind of
// failure charges nothing and writes no ledger row; concurrency can never overspend.

import nock from 'nock';
import t from 'tap';
import { createTestApp, type TestApp } from '../helpers/create-test-app.js';

nock.disableNetConnect();
let h: TestApp;
t.before(async () => {
  // Limits far above the load here: this file is about money, the limits have their own tests.
  h = await createTestApp({
    settings: { rateLimitPerSecond: 10_000, rateLimitBurst: 10_000, maxInFlightPerKey: 1_000 },
  });
});
t.afterEach(async () => {
  nock.cleanAll();
  await h.assertReconciled();
});
t.teardown(() => h.close());

t.test('a success charges exactly the price and writes one ledger row', async (t) => {
  const u = await h.user('1');
  const res = await h.client.get('/api/echo?msg=hello&n=5', { 'X-API-Key': u.key });
  t.equal(res.status, 200);
  t.equal(res.body.success, true);
  t.same(res.body.data.input, { msg: 'hello', n: 5 });
  t.equal(res.body.deducted, 0.01);
  t.equal(res.body.remaining, 0.99);
  t.equal(res.body.cached, false);
  t.match(res.body.request_id, /^req_/);
  t.equal(res.headers['x-request-id'], res.body.request_id);
  t.match(res.headers['server-timing'], /total;dur=[\d.]+, plugin;dur=[\d.]+/);
  t.equal(res.headers['x-ratelimit-limit'], '10000');
  t.same(await h.balance(u.userId), { balance: 990_000, held: 0 });
  const ledger = await h.ledger(u.userId);
  t.equal(ledger.length, 2);
  t.same(ledger[1], {
    amount: -10_000,
    kind: 'charge',
    ref: res.body.request_id,
    balance_after: 990_000,
    operation: 'echo',
  });
  const log = await h.callLog(u.userId);
  t.equal(log.length, 1);
  t.match(log[0], { status: 200, operation: 'echo', charged: 10_000, error_code: null });
});

const failures: Array<
  [string, (key: string) => Promise<{ status: number; body: { error: { code: string } } }>, number, string]
> = [
  ['invalid input', (k) => h.client.get('/api/echo?n=abc', { 'X-API-Key': k }), 400, 'INVALID_INPUT'],
  ['unknown field', (k) => h.client.get('/api/echo?bogus=1', { 'X-API-Key': k }), 400, 'INVALID_INPUT'],
  ['plugin error', (k) => h.client.get('/api/throws', { 'X-API-Key': k }), 500, 'INTERNAL'],
  ['unknown code', (k) => h.client.get('/api/nope', { 'X-API-Key': k }), 404, 'UNKNOWN_OPERATION'],
];

for (const [name, call, status, code] of failures) {
  t.test(`${name}: ${status} ${code}, charged 0, no ledger row`, async (t) => {
    const u = await h.user('1');
    const res = await call(u.key);
    t.equal(res.status, status);
    t.equal(res.body.error.code, code);
    t.match(res.body, { success: false, deducted: 0, remaining: 1 });
    t.same(await h.balance(u.userId), { balance: 1_000_000, held: 0 });
    t.equal((await h.ledger(u.userId)).length, 1, 'only the grant');
  });
}

t.test('no key and bad key', async (t) => {
  const none = await h.client.get('/api/echo?msg=x');
  t.equal(none.status, 401);
  t.equal(none.body.error.code, 'MISSING_API_KEY');
  t.notOk('remaining' in none.body, 'no remaining for an unidentified caller');
  const bad = await h.client.get('/api/echo?msg=x', { 'X-API-Key': `sk_${'x'.repeat(43)}` });
  t.equal(bad.status, 401);
  t.equal(bad.body.error.code, 'INVALID_API_KEY');
});

t.test('200 concurrent calls against a balance covering 37: exactly 37 succeed', async (t) => {
  const u = await h.user('0.37');
  const results = await Promise.all(
    Array.from({ length: 200 }, (_, i) => h.client.get(`/api/echo?msg=c${i}`, { 'X-API-Key': u.key })),
  );
  const ok = results.filter((r) => r.status === 200);
  const poor = results.filter((r) => r.status === 402);
  t.equal(ok.length, 37);
  t.equal(poor.length, 163);
  t.ok(poor.every((r) => r.body.error.code === 'INSUFFICIENT_BALANCE' && r.body.deducted === 0));
  t.same(await h.balance(u.userId), { balance: 0, held: 0 });
  const charges = (await h.ledger(u.userId)).filter((r) => r.kind === 'charge');
  t.equal(charges.length, 37);
  t.ok(charges.every((r) => r.amount === -10_000 && r.balance_after >= 0));
});
