// On the gateway's SQLite file a billed call's capture (balance, ledger row, call-log row) runs on the writer thread
// (core/store/writer-thread.ts, core/billing/memory-holds.ts captureOn): the calls of one turn share its
// transaction, each in a savepoint, so one that is refused or fails is undone alone and the others commit.
import { sql } from 'kysely';
import t from 'tap';
import { DuplicateReferenceError, InsufficientBalanceError, postEntry } from '../../core/billing/ledger.js';
import { memoryHoldsOf } from '../../core/billing/memory-holds.js';
import type { CallLogRow } from '../../core/store/call-log-rows.js';
import type { WriterThread } from '../../core/store/writer-thread.js';
import { createTestApp, type TestApp } from '../helpers/create-test-app.js';

const sqliteOnly =
  process.env.TOLLGATE_TEST_BACKEND === 'pg-redis' && 'SQLite only (PostgreSQL captures in one statement)';
let h: TestApp;
let thread: WriterThread;
let scripts = 0;
t.before(async () => {
  h = await createTestApp({
    settings: { rateLimitPerSecond: 10_000, rateLimitBurst: 10_000, maxInFlightPerKey: 1_000 },
  });
  if (sqliteOnly) return;
  thread = h.services.store.writerThread!;
  const run = thread.run.bind(thread);
  thread.run = (script) => (scripts++, run(script));
});
t.afterEach(() => h.assertReconciled());
t.teardown(() => h.close());

const logRow = (requestId: string, userId: number, charged: number): CallLogRow => ({
  request_id: requestId,
  user_id: userId,
  key_id: null,
  operation: 'echo',
  status: 200,
  error_code: null,
  charged,
  cached: 0,
  free_reason: null,
  duration_ms: 2,
  plugin_ms: 1,
  ip: '127.0.0.1',
  created_at: Date.now(),
});

const logIds = async (userId: number): Promise<string[]> => (await h.callLog(userId)).map((r) => String(r.request_id));

t.test(
  'a billed call is captured on the writer thread: price, ledger row, call-log row, balance',
  { skip: sqliteOnly },
  async (t) => {
    t.ok(thread.alive, 'the test gateway runs on a file, with the thread');
    const u = await h.user('1');
    const before = scripts;
    const res = await h.client.get('/api/echo?msg=thread', { 'X-API-Key': u.key });
    t.equal(res.status, 200);
    t.equal(res.body.deducted, 0.01);
    t.equal(res.body.remaining, 0.99);
    t.equal(scripts - before, 1, 'the capture ran as a script of the thread');
    t.same(await h.balance(u.userId), { balance: 990_000, held: 0 });
    t.match(await h.ledger(u.userId), [
      { kind: 'grant', amount: 1_000_000 },
      { kind: 'charge', amount: -10_000, balance_after: 990_000, ref: res.body.request_id, operation: 'echo' },
    ]);
    t.match(await h.callLog(u.userId), [{ request_id: res.body.request_id, status: 200, charged: 10_000 }]);
  },
);

t.test(
  'one turn, three captures: the refused one is undone alone, the others commit',
  { skip: sqliteOnly },
  async (t) => {
    const holds = memoryHoldsOf(h.services.store.db);
    const [a, b, c] = [await h.user('0.05'), await h.user('0.05'), await h.user('0.05')];
    const [ha, hb, hc] = [
      await holds.place(a.userId, 10_000),
      await holds.place(b.userId, 10_000),
      await holds.place(c.userId, 10_000),
    ];
    // B's money leaves behind the holds' back (as another process could): its capture's guard must refuse it.
    await h.services.store.db.transaction().execute((trx) =>
      sql`update users set balance = balance - 45000 where id = ${b.userId}`.execute(trx).then(() =>
        sql`insert into ledger (user_id, amount, balance_after, kind, ref, operation, note, created_at)
          values (${b.userId}, -45000, 5000, 'adjustment', ${`behind:${b.userId}`}, null, null, ${Date.now()})`.execute(
          trx,
        ),
      ),
    );
    const settled = await Promise.allSettled([
      holds.captureOn(thread, ha!, `ref-a-${a.userId}`, 'echo', [logRow(`req-a-${a.userId}`, a.userId, 10_000)]),
      holds.captureOn(thread, hb!, `ref-b-${b.userId}`, 'echo', [logRow(`req-b-${b.userId}`, b.userId, 10_000)]),
      holds.captureOn(thread, hc!, `ref-c-${c.userId}`, 'echo', [logRow(`req-c-${c.userId}`, c.userId, 10_000)]),
    ]);
    t.same(
      settled.map((s) => s.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    t.ok((settled[1] as PromiseRejectedResult).reason instanceof InsufficientBalanceError);
    t.same(
      settled.map((s) => (s.status === 'fulfilled' ? s.value : null)),
      [40_000, null, 40_000],
      'balance after each',
    );
    t.same(await h.balance(b.userId), { balance: 5_000, held: 0 }, 'B: only what was taken behind our back');
    t.same(await logIds(b.userId), [], "B's call-log row was undone with its charge");
    t.same(await logIds(a.userId), [`req-a-${a.userId}`]);
    t.same(await logIds(c.userId), [`req-c-${c.userId}`]);
    t.equal(await holds.place(a.userId, 40_001), null, "A's committed balance is what the holds count on now");
  },
);

t.test('a reused ledger reference is refused and writes nothing', { skip: sqliteOnly }, async (t) => {
  const holds = memoryHoldsOf(h.services.store.db);
  const u = await h.user('0.05');
  await postEntry(h.services.store.db, { userId: u.userId, amount: 1, kind: 'grant', ref: `taken-${u.userId}` });
  const hold = await holds.place(u.userId, 10_000);
  const refused = await holds
    .captureOn(thread, hold!, `taken-${u.userId}`, 'echo', [logRow(`req-dup-${u.userId}`, u.userId, 10_000)])
    .catch((err: unknown) => err);
  t.ok(refused instanceof DuplicateReferenceError, 'refused as a reused reference');
  t.same(await h.balance(u.userId), { balance: 50_001, held: 0 });
  t.same(await logIds(u.userId), []);
  t.ok(await holds.place(u.userId, 50_001), 'the reservation was given back');
});

t.test('a statement that fails inside one capture fails that call only', { skip: sqliteOnly }, async (t) => {
  const holds = memoryHoldsOf(h.services.store.db);
  const [a, b] = [await h.user('0.05'), await h.user('0.05')];
  const [ha, hb] = [await holds.place(a.userId, 10_000), await holds.place(b.userId, 10_000)];
  const broken = { ...logRow(`req-bad-${b.userId}`, b.userId, 10_000), status: null as unknown as number };
  const settled = await Promise.allSettled([
    holds.captureOn(thread, ha!, `ref-ok-${a.userId}`, 'echo', [logRow(`req-ok-${a.userId}`, a.userId, 10_000)]),
    holds.captureOn(thread, hb!, `ref-bad-${b.userId}`, 'echo', [broken]),
  ]);
  t.same(
    settled.map((s) => s.status),
    ['fulfilled', 'rejected'],
  );
  t.match((settled[1] as PromiseRejectedResult).reason, { code: 'SQLITE_CONSTRAINT_NOTNULL' });
  t.same(await h.balance(a.userId), { balance: 40_000, held: 0 });
  t.same(await h.balance(b.userId), { balance: 50_000, held: 0 }, 'B: nothing charged');
  t.same(await h.ledger(b.userId).then((rows) => rows.length), 1, 'B: only its grant');
});

t.test(
  'with the thread gone, billed calls capture on the gateway connection again',
  { skip: sqliteOnly },
  async (t) => {
    const u = await h.user('1');
    await thread.stop();
    t.notOk(thread.alive);
    const before = scripts;
    const res = await h.client.get('/api/echo?msg=after', { 'X-API-Key': u.key });
    t.equal(res.status, 200);
    t.equal(res.body.remaining, 0.99);
    t.equal(scripts, before, 'no script sent to a thread that is gone');
    t.match(await h.ledger(u.userId), [
      { kind: 'grant' },
      { kind: 'charge', amount: -10_000, ref: res.body.request_id },
    ]);
    t.match(await h.callLog(u.userId), [{ request_id: res.body.request_id, charged: 10_000 }]);
  },
);
