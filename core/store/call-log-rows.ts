// Writing call-log rows, the one way: the buffered writer (call-log-writer.ts), its thread (writer-thread.ts) and
// a charge's capture (the row that commits with the money) all come here. Inside an SQLite transaction each row is
// one cached prepared statement run straight on the connection (direct-sqlite.ts), which is cheaper than building
// a multi-row insert; elsewhere (PostgreSQL, or outside a transaction) Kysely inserts them in chunks.
import type { Insertable, Kysely, Transaction } from 'kysely';
import { directSqlite, runDirect } from './direct-sqlite.js';
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
 * Keys' last-use times, in ascending key id: the one order every process locks these rows in (two PostgreSQL
 * workers flushing the same keys in the order each happened to see them deadlocked, `npm run bench` cluster rows).
 */
export async function touchKeys(db: Transaction<Database>, uses: ReadonlyMap<number, number>): Promise<void> {
  const direct = directSqlite(db);
  for (const [keyId, at] of [...uses].sort((a, b) => a[0] - b[0])) {
    if (direct) runDirect(direct, TOUCH_KEY, [at, keyId, at]);
    else
      await db
        .updateTable('api_keys')
        .set({ last_used_at: at })
        .where('id', '=', keyId)
        .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', at)]))
        .execute();
  }
}
