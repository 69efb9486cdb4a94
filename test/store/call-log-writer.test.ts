// The buffered call-log writer's key times (api_keys.last_used_at): written in ascending key order, so two
// processes flushing the same keys cannot deadlock on PostgreSQL, and never moved back by an older flush.
import pg from 'pg';
import t from 'tap';
import { createApiKey } from '../../core/accounts/api-keys.js';
import { createUser } from '../../core/accounts/users.js';
import { createMemoryLogger } from '../../core/kernel/logger.js';
import { createCallLogWriter } from '../../core/store/call-log-writer.js';
import { openStore, type Store } from '../../core/store/database.js';
import { migrateToLatest } from '../../core/store/migrate.js';
import { freshPgRedis, PG_URL, unreachable } from '../scale/backend.js';

async function twoKeys(store: Store): Promise<[number, number]> {
  const user = await createUser(store.db, `keys-${Date.now()}@example.com`, 'password123', 'user', 'x');
  const a = await createApiKey(store.db, user.id, 'a');
  const b = await createApiKey(store.db, user.id, 'b');
  return [a.key.id, b.key.id];
}

async function lastUsed(store: Store, ids: number[]): Promise<Array<number | null>> {
  const rows = await store.db.selectFrom('api_keys').select(['id', 'last_used_at']).where('id', 'in', ids).execute();
  return ids.map((id) => {
    const v = rows.find((r) => r.id === id)?.last_used_at;
    return v === null || v === undefined ? null : Number(v);
  });
}

t.test('an older flush never moves a key time back (SQLite)', async (t) => {
  const store = openStore({ databaseUrl: null, dataDir: '.', sqliteFile: ':memory:' });
  t.teardown(() => store.close());
  await migrateToLatest(store.db as never, 'sqlite');
  const [a, b] = await twoKeys(store);
  const logger = createMemoryLogger('debug');
  const writer = createCallLogWriter(store.db, logger, { intervalMs: 60_000 });
  t.teardown(() => writer.close());
  writer.touchKey(b, 2000);
  writer.touchKey(a, 1000);
  await writer.flush();
  t.same(await lastUsed(store, [a, b]), [1000, 2000]);
  writer.touchKey(a, 500);
  writer.touchKey(b, 3000);
  await writer.flush();
  t.same(await lastUsed(store, [a, b]), [1000, 3000], 'a keeps the later time, b moves on');
  t.same(
    logger.lines.filter((l) => l.level === 'error'),
    [],
  );
});

const pgMissing = await unreachable();

t.test(
  'PostgreSQL: a flush waits for a row lock instead of deadlocking with a transaction that locks in key order',
  { skip: pgMissing ? `PostgreSQL needed: ${pgMissing}` : false },
  async (t) => {
    const backend = await freshPgRedis();
    t.teardown(() => backend.close());
    const store = openStore({ databaseUrl: PG_URL, dataDir: '.', schema: backend.schema });
    t.teardown(() => store.close());
    await migrateToLatest(store.db as never, 'postgres');
    const [a, b] = await twoKeys(store);
    t.ok(a < b);

    // Another process's transaction holds key a and will want key b next: the order of ascending ids.
    const other = new pg.Client({ connectionString: PG_URL, options: `-c search_path=${backend.schema}` });
    await other.connect();
    t.teardown(() => other.end());
    await other.query('begin');
    await other.query('update api_keys set last_used_at = 1 where id = $1', [a]);

    const logger = createMemoryLogger('debug');
    const writer = createCallLogWriter(store.db, logger, { intervalMs: 60_000 });
    t.teardown(() => writer.close());
    // Seen b first: a writer that locked in this order would hold b while waiting for a.
    writer.touchKey(b, 5000);
    writer.touchKey(a, 5000);
    const flushed = writer.flush();
    await new Promise((r) => setTimeout(r, 300));
    // With b held by the writer this would wait on it, and PostgreSQL would abort one side after deadlock_timeout.
    await other.query('update api_keys set last_used_at = 2 where id = $1', [b]);
    await other.query('commit');
    await flushed;

    t.same(
      logger.lines.filter((l) => l.level === 'error'),
      [],
      'no failed write',
    );
    t.same(await lastUsed(store, [a, b]), [5000, 5000], 'both keys carry the flushed time');
  },
);
