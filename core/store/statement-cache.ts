// Kysely's SQLite driver prepares every query afresh; on the billing hot path that parsing costs more than the
// query itself. Hand it a database whose prepare() reuses statements by SQL text. better-sqlite3 statements are
// synchronous and Kysely runs one query at a time on its single connection, so sharing them is safe.
import type SQLite from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

const MAX_STATEMENTS = 1000;

export function withStatementCache(db: SQLite.Database): SqliteDatabase {
  const cache = new Map<string, SQLite.Statement>();
  return {
    close: () => void db.close(),
    prepare(sql: string): SqliteStatement {
      let stmt = cache.get(sql);
      if (!stmt) {
        // Queries with variable-length lists (IN (...), multi-row inserts) have many shapes; a full reset keeps
        // the cache bounded without bookkeeping on every hit.
        if (cache.size >= MAX_STATEMENTS) cache.clear();
        stmt = db.prepare(sql);
        cache.set(sql, stmt);
      }
      return stmt as unknown as SqliteStatement;
    },
  };
}
