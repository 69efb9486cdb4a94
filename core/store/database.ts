// The database: SQLite (better-sqlite3, WAL) by default, PostgreSQL when DATABASE_URL is set.
// Both go through Kysely with the same migrations; bigint columns come back as exact JS integers on both.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { CompiledQuery, Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import type { Logger } from '../kernel/logger.js';
import { asMicro } from '../kernel/money.js';
import { type Checkpointer, newCheckpointSignal, startCheckpointer } from './checkpointer.js';
import { registerDirectSqlite } from './direct-sqlite.js';
import { migrateToLatest } from './migrate.js';
import { guardPool } from './pg-pool-guard.js';
import type { Database } from './schema.js';
import { withStatementCache } from './statement-cache.js';
import { createFaultFlag, type DatabaseStatus, storeStatus, withDeadline } from './store-health.js';
import { startWriterThread, type WriterThread } from './writer-thread.js';

export interface Store {
  db: Kysely<Database>;
  dialect: 'sqlite' | 'postgres';
  /** Cheap round trip under a deadline; throws when the database does not answer in time. */
  ping(): Promise<void>;
  /** For /api/health: the ping, and after a disk-full or I/O fault a small real write, until one succeeds. */
  status(): Promise<DatabaseStatus>;
  /** SQLite file of the gateway: the thread that does its plain-data writes (call-log rows, captures). */
  writerThread?: WriterThread;
  /** Applies the migrations this build knows; answers their names. */
  migrate(): Promise<string[]>;
  close(): Promise<void>;
}

export interface StoreOptions {
  databaseUrl: string | null;
  dataDir: string;
  /** SQLite file name under dataDir, or ':memory:' (tests). */
  sqliteFile?: string;
  /** PostgreSQL schema (search_path) for every connection; created when missing. */
  schema?: string | null;
  /** PostgreSQL: how long to wait for a connection (DB_CONNECT_TIMEOUT_MS). */
  connectTimeoutMs?: number;
  /** PostgreSQL statement_timeout, and (plus a second) the client's own read deadline (DB_STATEMENT_TIMEOUT_MS);
   *  none when absent (CLI commands). */
  statementTimeoutMs?: number;
  /** SQLite file: checkpoint from a worker thread (checkpointer.ts) and do plain-data writes (call-log rows,
   *  captures) from another (writer-thread.ts), reporting to this logger (the gateway). Absent: SQLite checkpoints
   *  inside its own commits and everything is written on the connection (CLI commands, short-lived processes). */
  checkpointLogger?: Logger;
}

function openSqlite(
  opts: StoreOptions,
  onFault: (err: unknown) => void,
): { db: Kysely<Database>; checkpointer?: Checkpointer; writerThread?: WriterThread } {
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
  // Every SQLite call has a deadline: a lock held by another process is waited on this long, then 503.
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  const statements = withStatementCache(sqlite, onFault);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: statements }) });
  registerDirectSqlite(db, statements);
  if (file === ':memory:' || !opts.checkpointLogger) return { db };
  const signal = newCheckpointSignal();
  return {
    db,
    checkpointer: startCheckpointer(sqlite, path, opts.checkpointLogger, onFault, signal),
    writerThread: startWriterThread(db, path, opts.checkpointLogger, onFault, signal),
  };
}

/** Errors PostgreSQL raises when two connections create the same schema at once: both mean "it exists". */
const SCHEMA_RACE = new Set(['42P06', '23505']);

function openPostgres(
  url: string,
  schema: string | null,
  connectTimeoutMs: number,
  statementTimeoutMs: number | undefined,
  max = 20,
): Kysely<Database> {
  // int8 (bigint, count(*)) and numeric (sum(bigint)) arrive as strings; money must stay exact, so parse and
  // refuse anything unsafe. A fractional numeric (an average) is not money and stays an ordinary number.
  pg.types.setTypeParser(20, (v: string) => asMicro(v));
  pg.types.setTypeParser(1700, (v: string) => (/^-?\d+$/.test(v) ? asMicro(v) : Number(v)));
  // Every PostgreSQL call of the server has a deadline: connecting, each statement on the server
  // (statement_timeout), and the client's own read deadline for a server or network that stopped answering
  // altogether (query_timeout). CLI commands (migrate, reconcile) pass no statement deadline: they may be long.
  const deadlines =
    statementTimeoutMs === undefined
      ? {}
      : {
          statement_timeout: statementTimeoutMs,
          query_timeout: statementTimeoutMs + 1000,
          idle_in_transaction_session_timeout: statementTimeoutMs * 2,
        };
  const pool = new pg.Pool({
    connectionString: url,
    max,
    connectionTimeoutMillis: connectTimeoutMs,
    ...deadlines,
    keepAlive: true,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  // A pool error on an idle client (server restart) would otherwise crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  // The same on a checked-out client between two queries (a reset mid-transaction): pg emits 'error' on the client,
  // and with no listener that kills the process. The failure still reaches the caller through its next query.
  pool.on('connect', (client) => client.on('error', () => undefined));
  const onCreateConnection = schema
    ? async (conn: { executeQuery: (q: CompiledQuery) => Promise<unknown> }): Promise<void> => {
        try {
          await conn.executeQuery(CompiledQuery.raw(`create schema if not exists "${schema}"`));
        } catch (err) {
          if (!SCHEMA_RACE.has((err as { code?: string }).code ?? '')) throw err;
        }
      }
    : undefined;
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool: guardPool(pool), onCreateConnection }) });
}

export function openStore(opts: StoreOptions): Store {
  const isPg = !!opts.databaseUrl && /^postgres(ql)?:\/\//.test(opts.databaseUrl);
  if (opts.databaseUrl && !isPg) throw new Error('DATABASE_URL must start with postgres:// (or be unset for SQLite)');
  const faults = createFaultFlag();
  const { db, checkpointer, writerThread } = isPg
    ? {
        db: openPostgres(
          opts.databaseUrl!,
          opts.schema ?? null,
          opts.connectTimeoutMs ?? 10_000,
          opts.statementTimeoutMs,
        ),
      }
    : openSqlite(opts, faults.raise);
  // The health ping answers within this even when the database hangs (the driver's own deadlines are longer).
  const pingMs = Math.min(2000, opts.statementTimeoutMs ?? 2000);
  const ping = (): Promise<void> => withDeadline(sql`select 1`.execute(db), pingMs);
  return {
    db,
    dialect: isPg ? 'postgres' : 'sqlite',
    ping,
    status: () => storeStatus(db, ping, faults, pingMs, !isPg),
    writerThread,
    // On PostgreSQL the migrations run on a connection of their own without the serving deadlines: Kysely's
    // Migrator first waits for one lock shared by the whole database, which another process's migration (a second
    // gateway starting, another deployment in the same database) may hold for seconds, and DDL on a large table may
    // take longer than a call's statement deadline. Under the serving pool's deadlines that wait failed the start.
    migrate: async () => {
      if (!isPg || opts.statementTimeoutMs === undefined)
        return migrateToLatest(db as never, isPg ? 'postgres' : 'sqlite');
      const own = openPostgres(
        opts.databaseUrl as string,
        opts.schema ?? null,
        opts.connectTimeoutMs ?? 10_000,
        undefined,
        1,
      );
      try {
        return await migrateToLatest(own as never, 'postgres');
      } finally {
        await own.destroy();
      }
    },
    close: async () => {
      await writerThread?.stop();
      await checkpointer?.stop();
      await db.destroy();
    },
  };
}
