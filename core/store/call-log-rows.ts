// Writing call-log rows, the one way: the buffered writer (call-log-writer.ts), its thread (writer-thread.ts) and
// a charge's capture (the row that commits with the money) all come here. Inside an SQLite transaction each row is
// one cached prepared statement run straight on the connection (direct-sqlite.ts), which is cheaper than building
// a multi-row insert; elsewhere (PostgreSQL, or outside a transaction) Kysely inserts them in chunks.
import { CompiledQuery, type Insertable, type Kysely, PostgresAdapter, type Transaction } from 'kysely';
import { directSqlite, runDirect } from './direct-sqlite.js';
import { PREPARED } from './pg-prepared.js';
import type { CallLogTable, Database } from './schema.js';

export type CallLogRow = Insertable<CallLogTable>;

/** SQLite texts, also run by the call-log thread on its own connection. */
export const INSERT_CALL_LOG =
  'insert into call_log (request_id, user_id, key_id, operation, status, error_code, charged, cached, free_reason, ' +
  'duration_ms, plugin_ms, ip, created_at, canary, failure_class, upstream, upstream_cost) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';
/** A key's last use; a time older than the stored one (another process's later flush) changes nothing. */
export const TOUCH_KEY =
  'update api_keys set last_used_at = ? where id = ? and (last_used_at is null or last_used_at < ?)';

/** One row as the parameters of INSERT_CALL_LOG, in its column order. */
export function callLogParams(r: CallLogRow): unknown[] {
  return [
    r.request_id,
    r.user_id ?? null,
    r.key_id ?? null,
    r.operation ?? null,
    r.status,
    r.error_code ?? null,
    r.charged ?? 0,
    r.cached ?? 0,
    r.free_reason ?? null,
    r.duration_ms,
    r.plugin_ms ?? null,
    r.ip ?? null,
    r.created_at,
    r.canary ?? 0,
    r.failure_class ?? null,
    r.upstream ?? null,
    r.upstream_cost ?? 0,
  ];
}

/** Rows per statement on the Kysely path: well under SQLite's 32,766 bound parameters and PostgreSQL's 65,535. */
const CHUNK = 60;

export async function insertCallLogRows(
  db: Kysely<Database> | Transaction<Database>,
  rows: readonly CallLogRow[],
): Promise<void> {
  const direct = directSqlite(db);
  if (direct) {
    for (const r of rows) runDirect(direct, INSERT_CALL_LOG, callLogParams(r));
    return;
  }
  for (let i = 0; i < rows.length; i += CHUNK)
    await db
      .insertInto('call_log')
      .values(rows.slice(i, i + CHUNK))
      .execute();
}

/**
 * PostgreSQL: every key of a flush in one statement. The rows are locked through `locked`, in ascending key id (the
 * one order every process locks these rows in: two workers flushing the same keys in the order each happened to
 * see them deadlocked, `npm run bench` cluster rows), and a row is updated only once `locked` has emitted it, so
 * whatever plan runs the join, locks are taken in that order. One statement per flush instead of one per key (a
 * statement each, built through Kysely, was a fifth of a worker's CPU at a few hundred calls a second).
 */
const TOUCH_KEYS_PG = `${PREPARED}with locked as materialized (
  select id from api_keys where id = any($1::bigint[]) order by id for update
)
update api_keys k set last_used_at = v.at
from unnest($1::bigint[], $2::bigint[]) as v(id, at), locked
where k.id = v.id and locked.id = v.id and (k.last_used_at is null or k.last_used_at < v.at)`;

/**
 * Keys' last-use times, in ascending key id: the one order every process locks these rows in. On PostgreSQL one
 * statement, atomic alone, so it needs no transaction of its own (`db` may be the pool).
 */
export async function touchKeys(
  db: Kysely<Database> | Transaction<Database>,
  uses: ReadonlyMap<number, number>,
): Promise<void> {
  if (uses.size === 0) return;
  const sorted = [...uses].sort((a, b) => a[0] - b[0]);
  const direct = directSqlite(db);
  if (direct) {
    for (const [keyId, at] of sorted) runDirect(direct, TOUCH_KEY, [at, keyId, at]);
    return;
  }
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await db.executeQuery(
      CompiledQuery.raw(TOUCH_KEYS_PG, [sorted.map(([id]) => String(id)), sorted.map(([, at]) => String(at))]),
    );
    return;
  }
  for (const [keyId, at] of sorted)
    await db
      .updateTable('api_keys')
      .set({ last_used_at: at })
      .where('id', '=', keyId)
      .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', at)]))
      .execute();
}
