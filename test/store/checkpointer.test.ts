// The gateway's SQLite checkpoints run on a worker thread (core/store/checkpointer.ts), not inside its commits.
import { closeSync, mkdtempSync, openSync, readSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import t from 'tap';
import { createMemoryLogger } from '../../core/kernel/logger.js';
import { newCheckpointSignal, startCheckpointer } from '../../core/store/checkpointer.js';
import { openStore } from '../../core/store/database.js';
import { migrateToLatest } from '../../core/store/migrate.js';
import { startWriterThread, type WriterThread } from '../../core/store/writer-thread.js';

const sizeOf = (file: string): number => statSync(file).size;

async function until(check: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return check();
}

t.test('the gateway connection never checkpoints itself; the worker copies the log into the database', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-ckpt-'));
  const logger = createMemoryLogger('debug');
  const store = openStore({ databaseUrl: null, dataDir: dir, checkpointLogger: logger });
  t.teardown(() => store.close());
  const auto = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(store.db);
  t.equal(auto.rows[0].wal_autocheckpoint, 0, 'automatic checkpoints are off on the gateway connection');
  await sql`create table blobs (id integer primary key, b blob)`.execute(store.db);
  const dbFile = join(dir, 'tollgate.db');
  const before = sizeOf(dbFile);
  // ~8 MB in one commit: far past the 1000 pages at which SQLite would have checkpointed inside this commit.
  await store.db.transaction().execute(async (trx) => {
    for (let i = 0; i < 2000; i++) await sql`insert into blobs (b) values (randomblob(4000))`.execute(trx);
  });
  t.ok(sizeOf(`${dbFile}-wal`) > 8_000_000, 'the commit went to the log');
  t.ok(await until(() => sizeOf(dbFile) > before + 8_000_000, 5000), 'the worker copied it into the database file');
  t.same(
    logger.lines.filter((l) => l.level === 'warn'),
    [],
    'no fallback',
  );
});

/** The log's checkpoint sequence number (bytes 12-15 of its header): SQLite adds one each time it starts the log
 *  over from its beginning. */
function logRestarts(file: string): number {
  const fd = openSync(file, 'r');
  try {
    const header = Buffer.alloc(16);
    readSync(fd, header, 0, 16, 0);
    return header.readUInt32BE(12);
  } finally {
    closeSync(fd);
  }
}

/**
 * Eight callers, each sending its next rows as soon as the last committed: the thread always has a transaction
 * queued, as under load, so the log is never all copied when a write comes (it grew ~120 MB a second so).
 */
async function writeSteadily(thread: WriterThread, ms: number): Promise<number> {
  const end = Date.now() + ms;
  let written = 0;
  await Promise.all(
    Array.from({ length: 8 }, async (_, caller) => {
      for (let i = 0; Date.now() < end; i++) {
        const at = Date.now();
        await thread.writeNow(
          Array.from({ length: 20 }, (_, j) => ({
            request_id: `req_${caller}_${i}_${j}`,
            user_id: null,
            key_id: null,
            operation: 'echo',
            status: 200,
            charged: 0,
            cached: 0,
            duration_ms: 1,
            ip: '127.0.0.1',
            created_at: at,
          })),
        );
        written += 20;
      }
    }),
  );
  return written;
}

t.test('under steady writes through the writer thread the log starts over instead of growing', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-ckpt-'));
  const store = openStore({ databaseUrl: null, dataDir: dir, checkpointLogger: createMemoryLogger('debug') });
  t.teardown(() => store.close());
  await migrateToLatest(store.db as never, 'sqlite');
  const wal = join(dir, 'tollgate.db-wal');
  const thread = store.writerThread!;
  const before = logRestarts(wal);
  const written = await writeSteadily(thread, 1500);
  const rows = await store.db
    .selectFrom('call_log')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .execute();
  t.equal(Number(rows[0].n), written, 'every row was written');
  t.ok(written > 5000, `enough writes to need several passes (${written} rows)`);
  // The checkpointer passes every 200 ms; after each the writer thread copies the rest and the next write restarts.
  t.ok(logRestarts(wal) - before >= 3, `the log started over ${logRestarts(wal) - before} times in 1.5 s`);
});

t.test('a worker that cannot run hands checkpoints back to the connection, and says so', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-ckpt-'));
  const sqlite = new SQLite(join(dir, 'real.db'));
  sqlite.pragma('journal_mode = WAL');
  t.teardown(() => sqlite.close());
  const logger = createMemoryLogger('debug');
  const checkpointer = startCheckpointer(sqlite, join(dir, 'missing.db'), logger); // fileMustExist: the worker fails
  t.equal(sqlite.pragma('wal_autocheckpoint', { simple: true }), 0);
  t.ok(
    await until(() => sqlite.pragma('wal_autocheckpoint', { simple: true }) === 1000, 5000),
    'SQLite’s own automatic checkpoints are back',
  );
  t.match(logger.lines, [{ level: 'warn', message: /background checkpoints stopped/ }]);
  await checkpointer.stop(); // already gone: returns at once
});

t.test(
  'without the checkpointer the writer thread checkpoints in its own commits, and the log still starts over',
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'tollgate-ckpt-'));
    const store = openStore({ databaseUrl: null, dataDir: dir }); // no threads of its own: started below
    t.teardown(() => store.close());
    await migrateToLatest(store.db as never, 'sqlite');
    const file = join(dir, 'tollgate.db');
    const logger = createMemoryLogger('debug');
    const signal = newCheckpointSignal();
    const thread = startWriterThread(store.db, file, logger, () => undefined, signal);
    t.teardown(() => thread.stop());
    const gateway = new SQLite(file);
    t.teardown(() => gateway.close());
    startCheckpointer(gateway, join(dir, 'missing.db'), logger, undefined, signal); // fileMustExist: it fails
    t.ok(await until(() => Atomics.load(signal, 1) === 1, 5000), 'the writer thread is told the checkpointer is gone');
    const wal = `${file}-wal`;
    const before = logRestarts(wal);
    const written = await writeSteadily(thread, 1500);
    t.ok(written > 5000, `${written} rows`);
    t.ok(logRestarts(wal) - before >= 1, `the log started over ${logRestarts(wal) - before} times in 1.5 s`);
    t.match(logger.lines, [{ level: 'warn', message: /background checkpoints stopped/ }]);
  },
);

t.test('close() ends the worker after a last pass; the file is whole', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-ckpt-'));
  const store = openStore({ databaseUrl: null, dataDir: dir, checkpointLogger: createMemoryLogger('debug') });
  await sql`create table t (x integer)`.execute(store.db);
  await sql`insert into t values (1), (2), (3)`.execute(store.db);
  await store.close();
  const check = new SQLite(join(dir, 'tollgate.db'), { readonly: true });
  t.teardown(() => check.close());
  t.equal(check.pragma('quick_check', { simple: true }), 'ok');
  t.same(check.prepare('select x from t order by x').pluck().all(), [1, 2, 3]);
});
