// The gateway's buffered call-log rows are written by a worker thread with its own connection
// (core/store/writer-thread.ts), taking turns with the gateway's own transactions (core/store/write-gate.ts).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import t, { type Test } from 'tap';
import { createApiKey } from '../../core/accounts/api-keys.js';
import { createUser } from '../../core/accounts/users.js';
import { createMemoryLogger } from '../../core/kernel/logger.js';
import { type CallLogRow, insertCallLogRows } from '../../core/store/call-log-rows.js';
import { createCallLogWriter } from '../../core/store/call-log-writer.js';
import { openStore, type Store } from '../../core/store/database.js';
import { inTransaction } from '../../core/store/group-commit.js';
import { migrateToLatest } from '../../core/store/migrate.js';
import { writeGateOf } from '../../core/store/write-gate.js';

const row = (requestId: string, keyId: number | null, at: number): CallLogRow => ({
  request_id: requestId,
  user_id: null,
  key_id: keyId,
  operation: 'echo',
  status: 200,
  error_code: null,
  charged: 0,
  cached: 1,
  free_reason: 'plan_cache',
  duration_ms: 1.5,
  plugin_ms: null,
  ip: '127.0.0.1',
  created_at: at,
});

/** A migrated gateway store on a file (the thread runs only there), a key, and a log of what the writer said. */
async function gatewayStore(
  t: Test,
): Promise<{ store: Store; keyId: number; logger: ReturnType<typeof createMemoryLogger> }> {
  const logger = createMemoryLogger('debug');
  const store = openStore({
    databaseUrl: null,
    dataDir: mkdtempSync(join(tmpdir(), 'tollgate-logthread-')),
    checkpointLogger: logger,
  });
  t.teardown(() => store.close());
  await migrateToLatest(store.db as never, 'sqlite');
  const user = await createUser(store.db, 'thread@example.com', 'password123', 'user', 'x');
  const { key } = await createApiKey(store.db, user.id, 'k');
  return { store, keyId: key.id, logger };
}

async function requestIds(store: Store): Promise<string[]> {
  const rows = await store.db.selectFrom('call_log').select('request_id').orderBy('id').execute();
  return rows.map((r) => r.request_id);
}

t.test('buffered rows and key times go through the thread, in order', async (t) => {
  const { store, keyId, logger } = await gatewayStore(t);
  const thread = store.writerThread!;
  t.ok(thread.alive, 'a gateway store on a file has the thread (started before its migrations ran)');
  let batches = 0;
  const write = thread.write.bind(thread);
  thread.write = (rows, uses) => (batches++, write(rows, uses));
  const writer = createCallLogWriter(store.db, logger, { intervalMs: 60_000, thread });
  t.teardown(() => writer.close());
  for (let i = 0; i < 300; i++) writer.add(row(`req_${String(i).padStart(4, '0')}`, keyId, 1000 + i));
  await writer.flush();
  t.equal(batches, 1, 'one batch, written by the thread');
  const ids = await requestIds(store);
  t.equal(ids.length, 300);
  t.same(ids, [...ids].sort(), 'in the order they were added');
  const key = await store.db
    .selectFrom('api_keys')
    .select('last_used_at')
    .where('id', '=', keyId)
    .executeTakeFirstOrThrow();
  t.equal(Number(key.last_used_at), 1299, "the key's last use is its newest row");
  t.same(
    logger.lines.filter((l) => l.level !== 'debug' && l.level !== 'info'),
    [],
  );
});

t.test("a capture queued while the thread writes waits its turn, never meets the thread's lock", async (t) => {
  const { store, keyId, logger } = await gatewayStore(t);
  // Without taking turns, the gateway's write would find the lock held; with no busy wait it fails at once.
  await sql`pragma busy_timeout = 0`.execute(store.db);
  const writer = createCallLogWriter(store.db, logger, { intervalMs: 60_000, thread: store.writerThread });
  t.teardown(() => writer.close());
  for (let i = 0; i < 5000; i++) writer.add(row(`req_a${String(i).padStart(4, '0')}`, keyId, 1000 + i));
  const flushed = writer.flush();
  await new Promise((r) => setImmediate(r)); // the thread has the batch (milliseconds of writing for 5000 rows)
  const captured = inTransaction(store.db, (trx) => insertCallLogRows(trx, [row('req_b', keyId, 9000)]));
  await Promise.all([flushed, captured]);
  const ids = await requestIds(store);
  t.equal(ids.length, 5001);
  t.equal(ids.at(-1), 'req_b', "the capture's row comes after every row of the batch before it");
  t.same(
    logger.lines.filter((l) => l.level === 'error' || l.level === 'warn'),
    [],
    'no failure',
  );
});

t.test('once the thread is gone the writer uses the gateway connection again, losing nothing', async (t) => {
  const { store, keyId, logger } = await gatewayStore(t);
  const thread = store.writerThread!;
  const writer = createCallLogWriter(store.db, logger, { intervalMs: 60_000, thread });
  t.teardown(() => writer.close());
  writer.add(row('req_1', keyId, 1000));
  await writer.flush();
  await thread.stop();
  t.notOk(thread.alive);
  await t.rejects(thread.write([row('req_x', keyId, 1)], new Map()), /writer thread ended/);
  writer.add(row('req_2', keyId, 2000));
  await writer.flush();
  t.same(await requestIds(store), ['req_1', 'req_2']);
  t.same(
    logger.lines.filter((l) => l.level === 'error'),
    [],
    'no failed write',
  );
});

t.test('a batch the thread could not write is kept, whole, for the next flush', async (t) => {
  const { store, keyId, logger } = await gatewayStore(t);
  // A write that fails inside the thread's transaction after some rows went in, until the flag is cleared.
  await sql`create table fail_writes (flag integer)`.execute(store.db);
  await sql`insert into fail_writes values (1)`.execute(store.db);
  await sql`create trigger refuse after insert on call_log
    when new.request_id = 'req_2' and (select count(*) from fail_writes) > 0
    begin select raise(abort, 'refused by the test'); end`.execute(store.db);
  const writer = createCallLogWriter(store.db, logger, { intervalMs: 60_000, thread: store.writerThread });
  t.teardown(() => writer.close());
  for (const id of ['req_1', 'req_2', 'req_3']) writer.add(row(id, keyId, 1000));
  await writer.flush();
  t.match(logger.lines, [{ level: 'error', message: 'call log write failed; rows kept for retry', queued: 3 }]);
  t.same(await requestIds(store), [], 'nothing half-written');
  t.ok(store.writerThread!.alive, 'the thread carries on');
  writer.add(row('req_4', keyId, 2000));
  await sql`delete from fail_writes`.execute(store.db);
  await writer.flush();
  t.same(await requestIds(store), ['req_1', 'req_2', 'req_3', 'req_4'], 'kept rows first, then the newer one');
  t.match(logger.lines.at(-1), { level: 'info', message: 'call log writes work again' });
});

t.test('rows a call waits for: one write per turn, each caller answered after it committed', async (t) => {
  const { store, keyId, logger } = await gatewayStore(t);
  const writer = createCallLogWriter(store.db, logger, { intervalMs: 60_000, thread: store.writerThread });
  t.teardown(() => writer.close());
  const seen: string[][] = [];
  await Promise.all(
    ['req_1', 'req_2', 'req_3'].map((id) =>
      writer.writeNow([row(id, keyId, 1000)]).then(async () => seen.push(await requestIds(store))),
    ),
  );
  // The first caller to go on already sees all three: one transaction for the turn, committed before anyone.
  for (const ids of seen) t.same(ids, ['req_1', 'req_2', 'req_3'], 'committed before the caller went on');

  // A failed write fails every caller of its turn (their calls are then refused, uncharged).
  await sql`create trigger refuse before insert on call_log begin select raise(abort, 'refused by the test'); end`.execute(
    store.db,
  );
  const results = await Promise.allSettled([
    writer.writeNow([row('req_4', keyId, 2000)]),
    writer.writeNow([row('req_5', keyId, 2000)]),
  ]);
  t.same(
    results.map((r) => r.status),
    ['rejected', 'rejected'],
  );
  t.same(await requestIds(store), ['req_1', 'req_2', 'req_3']);
});

t.test('turns that end while a transaction is in flight share the next one', async (t) => {
  const { store, keyId, logger } = await gatewayStore(t);
  const writer = createCallLogWriter(store.db, logger, { intervalMs: 60_000, thread: store.writerThread });
  t.teardown(() => writer.close());
  await sql`create trigger refuse before insert on call_log when new.request_id = 'req_bad'
    begin select raise(abort, 'refused by the test'); end`.execute(store.db);
  // The gateway holds the write gate, so the first two turns' transactions wait in flight.
  let open!: () => void;
  const held = writeGateOf(store.db).run('gateway', () => new Promise<void>((r) => (open = r)));
  const turn = (): Promise<void> => new Promise((r) => setImmediate(r));
  const calls: Array<Promise<void>> = [];
  for (const id of ['req_1', 'req_2', 'req_3', 'req_bad']) {
    calls.push(writer.writeNow([row(id, keyId, 1000)]));
    await turn();
    await turn();
  }
  open();
  await held;
  const results = await Promise.allSettled(calls);
  // req_3 and req_bad went in one transaction: the refused row failed both, and neither was written.
  t.same(
    results.map((r) => r.status),
    ['fulfilled', 'fulfilled', 'rejected', 'rejected'],
  );
  t.same(await requestIds(store), ['req_1', 'req_2']);
});

t.test('rows a call waits for, without the thread: the group commit on SQLite', async (t) => {
  const store = openStore({ databaseUrl: null, dataDir: '.', sqliteFile: ':memory:' });
  t.teardown(() => store.close());
  await migrateToLatest(store.db as never, 'sqlite');
  t.equal(store.writerThread, undefined, 'no thread for an in-memory database');
  const writer = createCallLogWriter(store.db, createMemoryLogger('debug'), { intervalMs: 60_000 });
  t.teardown(() => writer.close());
  await Promise.all([writer.writeNow([row('req_1', null, 1)]), writer.writeNow([row('req_2', null, 2)])]);
  t.same(await requestIds(store), ['req_1', 'req_2']);
});

t.test('a worker ended mid-transaction: every caller learns exactly what committed', async (t) => {
  const { store, keyId, logger } = await gatewayStore(t);
  const thread = store.writerThread!;
  const user = await store.db.selectFrom('users').select('id').executeTakeFirstOrThrow();
  await sql`update users set balance = 1000000 where id = ${user.id}`.execute(store.db);
  const script = (ref: string) => ({
    steps: [
      {
        sql: 'update users set balance = balance - ? where id = ? and balance - ? >= held returning balance, held',
        params: [10, user.id, 10],
        refuse: 'insufficient',
      },
      {
        sql: "insert into ledger (user_id, amount, balance_after, kind, ref, operation, note, created_at) values (?, ?, ?, 'charge', ?, 'echo', null, 1) returning id",
        params: [user.id, -10, { step: 0, column: 'balance' }, ref],
        refuse: 'duplicate',
      },
    ],
    committed: { sql: 'select balance_after as balance from ledger where ref = ?', params: [ref] },
  });
  const rows = Array.from({ length: 20_000 }, (_, i) => row(`req_${String(i).padStart(5, '0')}`, keyId, i));
  const waited = thread.writeNow(rows).then(
    () => 'written',
    () => 'failed',
  );
  const captured = thread.run(script('ref-1'));
  await new Promise((r) => setImmediate(r)); // the transaction is under way in the worker
  await thread.terminate();
  t.notOk(thread.alive);
  const ids = await requestIds(store);
  const ledger = await store.db.selectFrom('ledger').select('ref').execute();
  // Whichever way the race went, it went whole: all rows and the charge, or none of either.
  t.ok(ids.length === 0 || ids.length === 20_000, `${ids.length} rows`);
  t.equal(ledger.length, ids.length === 0 ? 0 : 1);
  t.equal(await waited, ids.length === 0 ? 'failed' : 'written', 'the rows waiter was told the truth');
  const result = await captured.catch(() => 'failed');
  t.same(result, ids.length === 0 ? 'failed' : { row: { balance: 999_990 } }, 'the capture was told the truth');
  t.match(logger.lines, [{ level: 'warn', message: /writer thread ended/ }]);
});
