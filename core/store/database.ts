// The database: SQLite (better-sqlite3, WAL) by default, PostgreSQL when DATABASE_URL is set.
// Both go through Kysely with the same migrations; bigint columns come back as exact JS integers on both.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { CompiledQuery, Kysely, SqliteDialect, PostgresDialect, sql } from 'kysely';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import type { Database } from './schema.js';
import { withStatementCache } from './statement-cache.js';
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
  /** PostgreSQL schema (search_path) for every connection; created when missing. */
  schema?: string | null;
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
  return new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
}

/** Errors PostgreSQL raises when two connections create the same schema at once: both mean "it exists". */
const SCHEMA_RACE = new Set(['42P06', '23505']);

function openPostgres(url: string, schema: string | null): Kysely<Database> {
  // int8 (bigint, count(*)) and numeric (sum(bigint)) arrive as strings; money must stay exact, so parse and
  // refuse anything unsafe. A fractional numeric (an average) is not money and stays an ordinary number.
  pg.types.setTypeParser(20, (v: string) => asMicro(v));
  pg.types.setTypeParser(1700, (v: string) => (/^-?\d+$/.test(v) ? asMicro(v) : Number(v)));
  const pool = new pg.Pool({ connectionString: url, max: 20, ...(schema ? { options: `-c search_path=${schema}` } : {}) });
  // A pool error on an idle client (server restart) would otherwise crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  const onCreateConnection = schema
    ? async (conn: { executeQuery: (q: CompiledQuery) => Promise<unknown> }): Promise<void> => {
        try {
          await conn.executeQuery(CompiledQuery.raw(`create schema if not exists "${schema}"`));
        } catch (err) {
          if (!SCHEMA_RACE.has((err as { code?: string }).code ?? '')) throw err;
        }
      }
    : undefined;
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool, onCreateConnection }) });
}

export function openStore(opts: StoreOptions): Store {
  const isPg = !!opts.databaseUrl && /^postgres(ql)?:\/\//.test(opts.databaseUrl);
  if (opts.databaseUrl && !isPg) throw new Error('DATABASE_URL must start with postgres:// (or be unset for SQLite)');
  const db = isPg ? openPostgres(opts.databaseUrl!, opts.schema ?? null) : openSqlite(opts);
  return {
    db,
    dialect: isPg ? 'postgres' : 'sqlite',
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    close: () => db.destroy(),
  };
}
