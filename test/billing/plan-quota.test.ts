// Plan quotas at their edges (core/billing/plan-pricing.ts): the Nth call of the day free and the N+1th
// charged; free concurrency; free cache hits only under cache_free; failed calls use no quota; a plan with
// calls_per_day 0 only counts. The X-Plan / X-Quota-* headers follow every call.

import { readFileSync } from 'node:fs';
import nock from 'nock';
import t from 'tap';
import { consoleUser, subscribe } from '../console/support.js';
import { createTestApp, type TestApp } from '../helpers/create-test-app.js';

nock.disableNetConnect();
let h: TestApp;
let noCacheFree: TestApp;
t.before(async () => {
  h = await createTestApp();
  const yaml = readFileSync('test/fixtures/operations.test.yaml', 'utf8').replace(
    'cache_free: true',
    'cache_free: false',
  );
  noCacheFree = await createTestApp({ operationsYaml: yaml });
});
t.afterEach(async () => {
  nock.cleanAll();
  await h.assertReconciled();
  await noCacheFree.assertReconciled();
});
t.teardown(async () => {
  await h.close();
  await noCacheFree.close();
});

t.test('basic (3 per day): calls 1-3 free, the 4th charged; headers count down', async (t) => {
  const u = await h.user('1');
  await subscribe(h, u.userId, 'basic');
  const seen: Array<[number, string, string, string]> = [];
  for (let i = 1; i <= 4; i++) {
    const res = await h.client.get(`/api/echo?msg=q${i}`, { 'X-API-Key': u.key });
    t.equal(res.status, 200);
    seen.push([
      res.body.deducted,
      res.headers['x-plan'],
      res.headers['x-quota-limit'],
      res.headers['x-quota-remaining'],
    ]);
  }
  t.same(seen, [
    [0, 'basic', '3', '2'],
    [0, 'basic', '3', '1'],
    [0, 'basic', '3', '0'],
    [0.01, 'basic', '3', '0'],
  ]);
  t.same(await h.balance(u.userId), { balance: 990_000, held: 0 });
  const ledger = await h.ledger(u.userId);
  t.equal(ledger.length, 2, 'grant + one charge');
  t.match(ledger[1], { amount: -10_000, kind: 'charge', operation: 'echo' });
  const log = await h.callLog(u.userId);
  t.same(
    log.map((r) => [r.charged, r.free_reason]),
    [
      [0, 'plan'],
      [0, 'plan'],
      [0, 'plan'],
      [10_000, null],
    ],
  );
});

t.test('an operation outside the plan codes is charged and uses no quota', async (t) => {
  const u = await h.user('1');
  await subscribe(h, u.userId, 'basic');
  const res = await h.client.get('/api/items/7', { 'X-API-Key': u.key });
  t.equal(res.body.deducted, 0.002);
  t.equal(res.headers['x-quota-remaining'], '3');
  t.equal(await h.services.plans.usedToday(u.userId), 0);
});

t.test('without a plan there are no quota headers', async (t) => {
  const u = await h.user('1');
  const res = await h.client.get('/api/echo?msg=noplan', { 'X-API-Key': u.key });
  t.equal(res.body.deducted, 0.01);
  t.notOk('x-plan' in res.headers);
  t.notOk('x-quota-remaining' in res.headers);
});

t.test('concurrency 2: of three simultaneous calls exactly one is charged', async (t) => {
  const u = await h.user('1');
  await subscribe(h, u.userId, 'basic');
  const results = await Promise.all(
    [1, 2, 3].map((i) => h.client.get(`/api/echo?msg=conc${i}&spinMs=400`, { 'X-API-Key': u.key })),
  );
  t.same(
    results.map((r) => r.status),
    [200, 200, 200],
  );
  t.same(results.map((r) => r.body.deducted).sort(), [0, 0, 0.01]);
  t.same(await h.balance(u.userId), { balance: 990_000, held: 0 });
  t.equal(await h.services.plans.usedToday(u.userId), 2, 'the charged call used no quota');
  const next = await h.client.get('/api/echo?msg=conc4', { 'X-API-Key': u.key });
  t.equal(next.body.deducted, 0, 'slots are free again: the third quota call is free');
  t.equal(next.headers['x-quota-remaining'], '0');
});

t.test('cache_free: a cache hit is free and uses no quota, even with the quota spent', async (t) => {
  const u = await h.user('1');
  await subscribe(h, u.userId, 'basic');
  const first = await h.client.get('/api/echo_cached?msg=cf1', { 'X-API-Key': u.key });
  t.match(first.body, { deducted: 0, cached: false });
  const hit = await h.client.get('/api/echo_cached?msg=cf1', { 'X-API-Key': u.key });
  t.match(hit.body, { deducted: 0, cached: true });
  t.equal(hit.headers['x-quota-remaining'], '2', 'the hit used no quota');
  for (const m of ['cf2', 'cf3']) await h.client.get(`/api/echo_cached?msg=${m}`, { 'X-API-Key': u.key });
  const charged = await h.client.get('/api/echo_cached?msg=cf4', { 'X-API-Key': u.key });
  t.match(charged.body, { deducted: 0.01, cached: false }, 'quota spent: a miss is charged');
  const freeHit = await h.client.get('/api/echo_cached?msg=cf1', { 'X-API-Key': u.key });
  t.match(freeHit.body, { deducted: 0, cached: true }, 'quota spent: a hit is still free');
  const log = await h.callLog(u.userId);
  t.same(
    log.map((r) => r.free_reason),
    ['plan', 'plan_cache', 'plan', 'plan', null, 'plan_cache'],
  );
  t.same(await h.balance(u.userId), { balance: 990_000, held: 0 });
});

t.test('without cache_free a cache hit uses quota, and is charged once the quota is spent', async (t) => {
  const n = noCacheFree;
  const u = await n.user('1');
  await subscribe(n, u.userId, 'basic');
  for (const m of ['nc1', 'nc2', 'nc3'])
    t.equal((await n.client.get(`/api/echo_cached?msg=${m}`, { 'X-API-Key': u.key })).body.deducted, 0);
  const hit = await n.client.get('/api/echo_cached?msg=nc1', { 'X-API-Key': u.key });
  t.match(hit.body, { deducted: 0.01, cached: true });
  t.same(await n.balance(u.userId), { balance: 990_000, held: 0 });
  t.match((await n.ledger(u.userId))[1], {
    amount: -10_000,
    kind: 'charge',
    operation: 'echo_cached',
    ref: hit.body.request_id,
  });
  const plain = await n.user('1');
  await n.client.get('/api/echo_cached?msg=nc9', { 'X-API-Key': plain.key });
  const plainHit = await n.client.get('/api/echo_cached?msg=nc9', { 'X-API-Key': plain.key });
  t.match(plainHit.body, { deducted: 0.01, cached: true }, 'no plan: a hit is charged');
});

t.test('a failed call uses no quota and costs nothing', async (t) => {
  const u = await h.user('1');
  await subscribe(h, u.userId, 'basic');
  const failed = await h.client.get('/api/slow', { 'X-API-Key': u.key });
  t.not(failed.status, 200);
  t.equal(failed.body.deducted, 0);
  t.equal(failed.headers['x-quota-remaining'], '3');
  t.equal(await h.services.plans.usedToday(u.userId), 0);
  for (let i = 0; i < 3; i++)
    t.equal((await h.client.get(`/api/echo?msg=f${i}`, { 'X-API-Key': u.key })).body.deducted, 0);
  t.equal((await h.client.get('/api/echo?msg=f4', { 'X-API-Key': u.key })).body.deducted, 0.01);
  t.same(await h.balance(u.userId), { balance: 990_000, held: 0 });
});

t.test('calls_per_day 0 only counts: every call is charged, successes are counted', async (t) => {
  const u = await consoleUser(h, '1');
  await subscribe(h, u.userId, 'counter');
  const a = await h.client.get('/api/echo?msg=c1', { 'X-API-Key': u.key });
  const b = await h.client.get('/api/echo?msg=c2', { 'X-API-Key': u.key });
  const bad = await h.client.get('/api/echo?n=x', { 'X-API-Key': u.key });
  t.same([a.body.deducted, b.body.deducted, bad.status], [0.01, 0.01, 400]);
  t.same([b.headers['x-plan'], b.headers['x-quota-limit'], b.headers['x-quota-remaining']], ['counter', '0', '0']);
  t.same(await h.balance(u.userId), { balance: 980_000, held: 0 });
  const me = await h.client.get('/console/api/me', u.headers);
  t.same(me.body.quota, { calls_per_day: 0, concurrency: null, cache_free: false, used_today: 2, remaining_today: 0 });
  t.match(me.body.plan, { id: 'counter', name: 'Counting only' });
});

t.test('me reports plan, quota use and the extended end date after a renewal', async (t) => {
  const u = await consoleUser(h, '1');
  await subscribe(h, u.userId, 'basic', 30);
  await subscribe(h, u.userId, 'basic', 30);
  await h.client.get('/api/echo?msg=me1', { 'X-API-Key': u.key });
  const me = await h.client.get('/console/api/me', u.headers);
  t.equal(me.body.plan.id, 'basic');
  t.equal(me.body.plan.name, 'Basic');
  const days = (Date.parse(me.body.plan.ends_at) - Date.now()) / 86_400_000;
  t.ok(days > 59.9 && days <= 60, `ends in 60 days (${days})`);
  t.same(me.body.quota, { calls_per_day: 3, concurrency: 2, cache_free: true, used_today: 1, remaining_today: 2 });
  t.same([me.body.balance, me.body.available], [1, 1]);
});
