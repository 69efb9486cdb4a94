// Kysely's SQLite driver prepares every query afresh; on the billing hot path that parsing costs more than the
// query itself. Hand it a database whose prepare() reuses statements by SQL text. better-sqlite3 statements are
// synchronous and Kysely runs one query at a time on its single connection, so sharing them is safe.
//
// Two fault rules live here too, because this is where every statement runs:
// - When a write fails with SQLITE_FULL or an I/O error, SQLite has often rolled the transaction back itself;
//   Kysely's ROLLBACK would then throw "cannot rollback - no transaction is active" and hide the real error
//   (so the caller got 500 instead of 503). ROLLBACK outside a transaction is therefore a no-op.
// - Storage faults are reported to `onFault`, so /api/health can say the database cannot write.
import type SQLite from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';
import { isStorageFault } from './database-errors.js';

const MAX_STATEMENTS = 1000;

type Params = ReadonlyArray<unknown>;

function watched(
  db: SQLite.Database,
  stmt: SQLite.Statement,
  sql: string,
  onFault: (err: unknown) => void,
): SqliteStatement {
  const guard = <T>(work: () => T): T => {
    try {
      return work();
    } catch (err) {
      if (isStorageFault(err)) onFault(err);
      throw err;
    }
  };
  const isRollback = /^\s*rollback\s*$/i.test(sql);
  return {
    reader: stmt.reader,
    all: (params: Params) => guard(() => stmt.all(params as unknown[])),
    run: (params: Params) => {
      if (isRollback && !db.inTransaction) return { changes: 0, lastInsertRowid: 0 };
      return guard(() => stmt.run(params as unknown[]));
    },
    iterate: (params: Params) => guard(() => stmt.iterate(params as unknown[])),
  } as unknown as SqliteStatement;
}

export function withStatementCache(
  db: SQLite.Database,
  onFault: (err: unknown) => void = () => undefined,
): SqliteDatabase {
  const cache = new Map<string, SqliteStatement>();
  return {
    close: () => void db.close(),
    prepare(sql: string): SqliteStatement {
      let stmt = cache.get(sql);
      if (!stmt) {
        // Queries with variable-length lists (IN (...), multi-row inserts) have many shapes; a full reset keeps
        // the cache bounded without bookkeeping on every hit.
        if (cache.size >= MAX_STATEMENTS) cache.clear();
        stmt = watched(db, db.prepare(sql), sql, onFault);
        cache.set(sql, stmt);
      }
      return stmt;
    },
  };
}
