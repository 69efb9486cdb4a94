// Statements run straight on the SQLite connection while a transaction holds it. Kysely's SQLite dialect has one
// connection, and a transaction keeps it (and Kysely's lock on it) from BEGIN to COMMIT: a statement run on the
// same better-sqlite3 handle meanwhile is part of that transaction, exactly as if Kysely had run it, minus the
// query object, the connection lock and the chain of promises Kysely spends on each statement (a billed call runs
// five capture statements inside the group commit). Outside a transaction nothing may go around
// Kysely's lock (a statement could land inside someone else's open transaction), so there is no direct handle then.
import type { Kysely, QueryResult, SqliteDatabase, Transaction } from 'kysely';

const handles = new WeakMap<object, SqliteDatabase>();

/** Called once by openStore for the SQLite Kysely instance and the statement cache behind it. */
export function registerDirectSqlite<DB>(db: Kysely<DB>, statements: SqliteDatabase): void {
  handles.set(db.getExecutor().adapter, statements);
}

/** The cached statements of the connection `trx` holds, when it is an SQLite transaction; else undefined. */
export function directSqlite<DB>(trx: Kysely<DB> | Transaction<DB>): SqliteDatabase | undefined {
  return trx.isTransaction ? handles.get(trx.getExecutor().adapter) : undefined;
}

/** One statement on that connection, answered in the shape Kysely's SQLite driver gives. */
export function runDirect<Row>(
  statements: SqliteDatabase,
  text: string,
  params: ReadonlyArray<unknown>,
): QueryResult<Row> {
  const stmt = statements.prepare(text);
  if (stmt.reader) return { rows: stmt.all(params) as Row[] };
  const { changes, lastInsertRowid } = stmt.run(params);
  return { rows: [], numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid) };
}
