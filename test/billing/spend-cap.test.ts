// A key's daily spending cap: charged calls reserve their price against the cap before the hold; a call over
// the cap is 402 and never runs; failed calls and free calls give their reservation back.
import { CompiledQuery } from 'kysely';
import t from 'tap';
import { reserveSpend, spentFromLogQuery, spentToday } from '../../core/billing/spend-cap.js';
import { toMicro } from '../../core/kernel/money.js';
import { createMemoryState } from '../../core/state/memory-state.js';
import { consoleUser, subscribe } from '../console/support.js';
import { createTestApp, type TestApp } from '../helpers/create-test-app.js';

let h: TestApp;
t.before(async () => {
  h = await createTestApp();
});
t.afterEach(() => h.assertReconciled());
t.teardown(() => h.close());

const CAP_MESSAGE = "This key's daily spending cap of 0.03 TOKEN is reached; it resets at midnight China time (UTC+8).";

t.test('cap 0.03 with price 0.01: three calls pass, the fourth is 402 and costs nothing', async (t) => {
  const u = await h.user('1', { daily_spend_cap: toMicro('0.03') });
  for (let i = 0; i < 3; i++)
    t.equal((await h.client.get(`/api/echo?msg=s${i}`, { 'X-API-Key': u.key })).body.deducted, 0.01);
  const over = await h.client.get('/api/echo?msg=s3', { 'X-API-Key': u.key });
  t.equal(over.status, 402);
  t.same(over.body.error, { code: 'INSUFFICIENT_BALANCE', message: CAP_MESSAGE });
  t.match(over.body, { deducted: 0, remaining: 0.97 });
  t.same(await h.balance(u.userId), { balance: 970_000, held: 0 });
  t.equal((await h.ledger(u.userId)).length, 4);
  t.equal(await spentToday(h.services.store.db, h.services.state, u), 30_000);
  const free = await h.client.get('/api/echo_free?msg=x', { 'X-API-Key': u.key });
  t.equal(free.status, 200, 'a free operation is not limited by the cap');
  const other = await h.services.store.db.selectFrom('api_keys').select('id').where('user_id', '=', u.userId).execute();
  t.equal(other.length, 1);
});

t.test('the cap is per key: another key of the same user still works', async (t) => {
  const u = await consoleUser(h, '1', { daily_spend_cap: toMicro('0.01') });
  t.equal((await h.client.get('/api/echo?msg=k1', { 'X-API-Key': u.key })).status, 200);
  t.equal((await h.client.get('/api/echo?msg=k2', { 'X-API-Key': u.key })).status, 402);
  const second = await h.client.post('/console/api/keys', { name: 'no cap' }, u.headers);
  t.equal((await h.client.get('/api/echo?msg=k3', { 'X-API-Key': second.body.secret })).status, 200);
});

t.test('failed calls give their reservation back', async (t) => {
  const u = await h.user('1', { daily_spend_cap: toMicro('0.01') });
  const failed = await h.client.get('/api/throws', { 'X-API-Key': u.key });
  t.equal(failed.status, 500);
  t.equal(await spentToday(h.services.store.db, h.services.state, u), 0);
  t.equal((await h.client.get('/api/echo?msg=after', { 'X-API-Key': u.key })).body.deducted, 0.01);
  t.same(await h.balance(u.userId), { balance: 990_000, held: 0 });
});

t.test('concurrent calls cannot overshoot the cap', async (t) => {
  const u = await h.user('1', { daily_spend_cap: toMicro('0.05'), max_concurrency: 20 });
  const results = await Promise.all(
    Array.from({ length: 15 }, (_, i) => h.client.get(`/api/echo?msg=p${i}`, { 'X-API-Key': u.key })),
  );
  t.equal(results.filter((r) => r.status === 200).length, 5);
  t.equal(results.filter((r) => r.status === 402).length, 10);
  t.same(await h.balance(u.userId), { balance: 950_000, held: 0 });
});

t.test('plan-free calls and free cache hits do not count against the cap', async (t) => {
  const u = await h.user('1', { daily_spend_cap: toMicro('0.02') });
  await subscribe(h, u.userId, 'basic');
  for (let i = 0; i < 3; i++)
    t.equal((await h.client.get(`/api/echo?msg=pf${i}`, { 'X-API-Key': u.key })).body.deducted, 0);
  t.equal(await spentToday(h.services.store.db, h.services.state, u), 0, 'plan-free calls spend nothing');
  t.equal(
    (await h.client.get('/api/echo_cached?msg=pfc', { 'X-API-Key': u.key })).body.deducted,
    0.01,
    'quota spent: charged',
  );
  const hit = await h.client.get('/api/echo_cached?msg=pfc', { 'X-API-Key': u.key });
  t.match(hit.body, { cached: true, deducted: 0 });
  t.equal(await spentToday(h.services.store.db, h.services.state, u), 10_000, 'only the charged cache miss');
  t.equal((await h.client.get('/api/echo?msg=pf8', { 'X-API-Key': u.key })).body.deducted, 0.01);
  const over = await h.client.get('/api/echo?msg=pf9', { 'X-API-Key': u.key });
  t.equal(over.status, 402);
  t.equal(
    over.body.error.message,
    "This key's daily spending cap of 0.02 TOKEN is reached; it resets at midnight China time (UTC+8).",
  );
  // The cache is read before the price: a hit the plan makes free is never weighed against the cap.
  const freeHit = await h.client.get('/api/echo_cached?msg=pfc', { 'X-API-Key': u.key });
  t.equal(freeHit.status, 200, 'cap reached: a free cache hit still answers');
  t.match(freeHit.body, { cached: true, deducted: 0, remaining: 0.98 });
  t.equal(await spentToday(h.services.store.db, h.services.state, u), 20_000);
  t.same(await h.balance(u.userId), { balance: 980_000, held: 0 });
  t.same((await h.callLog(u.userId)).at(-1)?.free_reason, 'plan_cache');
});

t.test('a fresh process rebuilds the day from the call log', async (t) => {
  const u = await h.user('1', { daily_spend_cap: toMicro('0.02') });
  await h.client.get('/api/echo?msg=r1', { 'X-API-Key': u.key });
  await h.client.get('/api/echo?msg=r2', { 'X-API-Key': u.key });
  await h.services.callLog.flush();
  const fresh = createMemoryState();
  t.equal(await spentToday(h.services.store.db, fresh, u), 20_000);
  t.equal(await reserveSpend(h.services.store.db, fresh, u, 20_000, 10_000), null, 'the cap holds across a restart');
  await fresh.close();
});

t.test('the rebuild counts this key only, through the owner index of today (no scan of the whole log)', async (t) => {
  const u = await consoleUser(h, '1', { daily_spend_cap: toMicro('0.05') });
  const second = await h.client.post('/console/api/keys', { name: 'other' }, u.headers);
  t.equal(second.status, 201);
  await h.client.get('/api/echo?msg=o1', { 'X-API-Key': u.key });
  await h.client.get('/api/echo?msg=o2', { 'X-API-Key': second.body.secret });
  await h.client.get('/api/echo?msg=o3', { 'X-API-Key': second.body.secret });
  await h.services.callLog.flush();
  const fresh = createMemoryState();
  t.equal(await spentToday(h.services.store.db, fresh, u), 10_000, "the other key's two calls are not this key's");
  await fresh.close();
  if (h.services.store.dialect === 'sqlite') {
    const { sql: text, parameters } = spentFromLogQuery(h.services.store.db, u).compile();
    const plan = await h.services.store.db.executeQuery<{ detail: string }>(
      CompiledQuery.raw(`EXPLAIN QUERY PLAN ${text}`, [...parameters]),
    );
    t.match(
      plan.rows.map((r) => r.detail).join('; '),
      /SEARCH call_log USING INDEX call_log_user_time \(user_id=\? AND created_at>\?\)/,
    );
  }
});
