// The database: SQLite (better-sqlite3, WAL) by default, PostgreSQL when DATABASE_URL is set.
// Both go through Kysely with the same migrations; bigint columns come back as exact JS integers on both.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Kysely, SqliteDialect, PostgresDialect, sql } from 'kysely';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import type { Database } from './schema.js';
import { asMicro } from '../billing/money.js';

export interface Store {
  db: Kysely<Database>;
  dialect: 'sqlite' | 'postgres';
  /** Cheap round trip for /api/health. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface StoreOptions {
  databaseUrl: string | null;
  dataDir: string;
  /** SQLite file name under dataDir, or ':memory:' (tests). */
  sqliteFile?: string;
}

function openSqlite(opts: StoreOptions): Kysely<Database> {
  const file = opts.sqliteFile ?? 'tollgate.db';
  let path = file;
  if (file !== ':memory:') {
    mkdirSync(opts.dataDir, { recursive: true });
    path = join(opts.dataDir, file);
  }
  const sqlite = new SQLite(path);
  sqlite.pragma('journal_mode = WAL');
  // NORMAL in WAL mode: durable across process crashes; only an OS crash can lose the last commits.
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  return new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
}

function openPostgres(url: string): Kysely<Database> {
  // int8 (bigint, count(*)) arrives as a string; money must stay exact, so parse and refuse anything unsafe.
  pg.types.setTypeParser(20, (v: string) => asMicro(v));
  const pool = new pg.Pool({ connectionString: url, max: 20 });
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}

export function openStore(opts: StoreOptions): Store {
  const isPg = !!opts.databaseUrl && /^postgres(ql)?:\/\//.test(opts.databaseUrl);
  if (opts.databaseUrl && !isPg) throw new Error('DATABASE_URL must start with postgres:// (or be unset for SQLite)');
  const db = isPg ? openPostgres(opts.databaseUrl!) : openSqlite(opts);
  return {
    db,
    dialect: isPg ? 'postgres' : 'sqlite',
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    close: () => db.destroy(),
  };
}
