// Writing call-log rows, the one way: the buffered writer (call-log-writer.ts) and a charge's capture (the row that
// commits with the money) both come here. Inside an SQLite transaction each row is one cached prepared statement
// run straight on the connection (direct-sqlite.ts), which is cheaper than building a multi-row insert; elsewhere
// (PostgreSQL, or outside a transaction) Kysely inserts them in chunks.
import type { Insertable, Kysely, Transaction } from 'kysely';
import { directSqlite, runDirect } from './direct-sqlite.js';
import type { CallLogTable, Database } from './schema.js';

export type CallLogRow = Insertable<CallLogTable>;

const INSERT =
  'insert into call_log (request_id, user_id, key_id, operation, status, error_code, charged, cached, free_reason, ' +
  'duration_ms, plugin_ms, ip, created_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';

/** Rows per statement on the Kysely path: well under SQLite's 32,766 bound parameters and PostgreSQL's 65,535. */
const CHUNK = 60;

export async function insertCallLogRows(
  db: Kysely<Database> | Transaction<Database>,
  rows: readonly CallLogRow[],
): Promise<void> {
  const direct = directSqlite(db);
  if (direct) {
    for (const r of rows) {
      runDirect(direct, INSERT, [
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
      ]);
    }
    return;
  }
  for (let i = 0; i < rows.length; i += CHUNK)
    await db
      .insertInto('call_log')
      .values(rows.slice(i, i + CHUNK))
      .execute();
}
