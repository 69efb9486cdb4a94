// SQLite holds live in memory (core/billing/memory-holds.ts): a reservation writes nothing, concurrent calls still
// never spend the same money twice, credits are seen at once (posted here or behind our back), a debit behind our
// back fails the capture uncharged instead of overdrawing, and a process that dies with holds loses no money.

import { sql } from 'kysely';
import t from 'tap';
import { postEntry } from '../../core/billing/ledger.js';
import { MemoryHolds, memoryHoldsOf } from '../../core/billing/memory-holds.js';
import { createTestApp, type TestApp } from '../helpers/create-test-app.js';

const sqliteOnly = process.env.TOLLGATE_TEST_BACKEND === 'pg-redis' && 'SQLite only (PostgreSQL keeps row holds)';
let h: TestApp;
t.before(async () => {
  h = await createTestApp({
    settings: { rateLimitPerSecond: 10_000, rateLimitBurst: 10_000, maxInFlightPerKey: 1_000 },
  });
});
t.afterEach(() => h.assertReconciled());
t.teardown(() => h.close());

const holdRows = async (): Promise<number> =>
  Number((await sql<{ n: number }>`select count(*) as n from holds`.execute(h.services.store.db)).rows[0].n);

t.test(
  'a reservation writes no row and moves no money, yet the same money cannot be reserved twice',
  { skip: sqliteOnly },
  async (t) => {
    const u = await h.user('0.03');
    const holds = memoryHoldsOf(h.services.store.db);
    const first = await holds.place(u.userId, 20_000);
    t.ok(first, 'the first reservation fits');
    t.equal(await holds.place(u.userId, 20_000), null, 'a second one of the same size does not (only 10,000 left)');
    const second = await holds.place(u.userId, 10_000);
    t.ok(second, 'what is left can still be reserved');
    t.equal(await holdRows(), 0, 'no hold row');
    t.same(await h.balance(u.userId), { balance: 30_000, held: 0 }, 'nothing moved in the database');
    holds.giveBack(first!);
    t.ok(await holds.place(u.userId, 20_000), 'a released reservation is available again');
  },
);

t.test(
  'a process that dies with reservations loses no money: a new one starts from the committed balance',
  { skip: sqliteOnly },
  async (t) => {
    const u = await h.user('0.02');
    const dying = new MemoryHolds(h.services.store.db);
    t.ok(await dying.place(u.userId, 20_000));
    // The "restarted" process knows nothing of those reservations; the whole balance is there.
    const fresh = new MemoryHolds(h.services.store.db);
    const hold = await fresh.place(u.userId, 20_000);
    t.ok(hold);
    t.equal(await fresh.capture(hold!, 'restart-charge', 'echo'), 0);
    t.same(await h.balance(u.userId), { balance: 0, held: 0 });
  },
);

t.test('a credit posted through the ledger is usable by the very next call', { skip: sqliteOnly }, async (t) => {
  const u = await h.user('0.01');
  t.equal((await h.client.get('/api/echo?msg=a', { 'X-API-Key': u.key })).status, 200);
  const poor = await h.client.get('/api/echo?msg=b', { 'X-API-Key': u.key });
  t.equal(poor.status, 402);
  await postEntry(h.services.store.db, { userId: u.userId, amount: 10_000, kind: 'grant', ref: `topup:${u.userId}` });
  const res = await h.client.get('/api/echo?msg=c', { 'X-API-Key': u.key });
  t.equal(res.status, 200);
  t.equal(res.body.remaining, 0);
  t.same(await h.balance(u.userId), { balance: 0, held: 0 });
});

t.test(
  'a credit written by another process (not through this one) is seen before answering 402',
  { skip: sqliteOnly },
  async (t) => {
    const u = await h.user('0.01');
    t.equal((await h.client.get('/api/echo?msg=a', { 'X-API-Key': u.key })).status, 200);
    // What `tollgate grant` in another process does: balance and ledger row, without this process's ledger.ts.
    await sql`update users set balance = balance + 20000 where id = ${u.userId}`.execute(h.services.store.db);
    await sql`insert into ledger (user_id, amount, balance_after, kind, ref, created_at) values (${u.userId}, 20000, 20000, 'grant', ${`cli:${u.userId}`}, ${Date.now()})`.execute(
      h.services.store.db,
    );
    const res = await h.client.get('/api/echo?msg=b', { 'X-API-Key': u.key });
    t.equal(res.status, 200);
    t.equal(res.body.remaining, 0.01);
  },
);

t.test(
  'a debit behind our back: the capture refuses to overdraw, the call is answered 402 and charged nothing',
  { skip: sqliteOnly },
  async (t) => {
    const u = await h.user('0.02');
    t.equal(
      (await h.client.get('/api/echo?msg=a', { 'X-API-Key': u.key })).status,
      200,
      'this process now remembers 0.01 left',
    );
    await sql`update users set balance = balance - 10000 where id = ${u.userId}`.execute(h.services.store.db);
    await sql`insert into ledger (user_id, amount, balance_after, kind, ref, created_at) values (${u.userId}, -10000, 0, 'refund', ${`cli-refund:${u.userId}`}, ${Date.now()})`.execute(
      h.services.store.db,
    );
    const res = await h.client.get('/api/echo?msg=b', { 'X-API-Key': u.key });
    t.equal(res.status, 402);
    t.equal(res.body.error.code, 'INSUFFICIENT_BALANCE');
    t.equal(res.body.deducted, 0);
    t.same(await h.balance(u.userId), { balance: 0, held: 0 }, 'never below zero');
    t.equal((await h.ledger(u.userId)).filter((r) => r.kind === 'charge').length, 1, 'only the first call was charged');
  },
);

t.test(
  '300 concurrent calls of one user against a balance of 0.5: exactly 50 charged, balance 0',
  { skip: sqliteOnly },
  async (t) => {
    const u = await h.user('0.5');
    const results = await Promise.all(
      Array.from({ length: 300 }, (_, i) => h.client.get(`/api/echo?msg=m${i}`, { 'X-API-Key': u.key })),
    );
    t.equal(results.filter((r) => r.status === 200).length, 50);
    t.equal(results.filter((r) => r.status === 402).length, 250);
    t.same(await h.balance(u.userId), { balance: 0, held: 0 });
    t.equal(await holdRows(), 0);
    const charges = (await h.ledger(u.userId)).filter((r) => r.kind === 'charge');
    t.equal(charges.length, 50);
    t.equal(
      charges.reduce((a, r) => a + r.amount, 0),
      -500_000,
    );
  },
);

t.test(
  "the seam's one-step charge on SQLite: a reservation and its capture, exact; refused with nothing written",
  { skip: sqliteOnly },
  async (t) => {
    const u = await h.user('0.012');
    const money = h.services.money;
    t.equal(money.holdIsRoundTrip, false, 'in memory a hold costs nothing: calls keep their hold before the plugin');
    t.equal(await money.chargeAtOnce(u.userId, 5_000, `req_once_${u.userId}_1`, 'echo', []), 7_000);
    t.equal(await money.chargeAtOnce(u.userId, 5_000, `req_once_${u.userId}_2`, 'echo', []), 2_000);
    await t.rejects(money.chargeAtOnce(u.userId, 5_000, `req_once_${u.userId}_3`, 'echo', []), {
      message: 'insufficient available balance',
    });
    t.same(await h.balance(u.userId), { balance: 2_000, held: 0 });
    t.same(
      (await h.ledger(u.userId)).filter((l) => l.kind === 'charge').map((l) => [l.amount, l.ref]),
      [
        [-5_000, `req_once_${u.userId}_1`],
        [-5_000, `req_once_${u.userId}_2`],
      ],
    );
    t.ok(await memoryHoldsOf(h.services.store.db).place(u.userId, 2_000), 'nothing left reserved');
  },
);
