// `tollgate backup <file>` and `tollgate restore <file> [--force]` for the embedded SQLite database.
// Backup uses SQLite's online backup API (better-sqlite3 .backup()): a consistent copy while the gateway keeps
// serving and writing. Restore replaces the database with a checked copy, keeps the replaced one, migrates and
// reconciles. PostgreSQL has its own tools; there both commands print the pg_dump / pg_restore commands and exit 1
// rather than pretend (docs/operators.md, "Backup and restore").
import { existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import SQLite from 'better-sqlite3';
import type { Settings } from '../config/env.js';
import { openStore } from '../store/database.js';
import { migrateToLatest } from '../store/migrate.js';
import { type ParsedArgs, UsageError } from './args.js';
import { type Print, reconcileCommand } from './commands.js';

export const SQLITE_FILE = 'tollgate.db';
const ALL_PAGES = 0x7fffffff;
/** The tables a Tollgate database has from its first migration on: anything else is not ours. */
const MARKER_TABLES = ['kysely_migration', 'users', 'ledger', 'api_keys'];

function target(args: ParsedArgs): string {
  const file = args.words[1];
  if (!file) throw new UsageError(`missing file: ${args.words[0]} <file>`);
  return resolve(file);
}

function pgCommands(settings: Settings, file: string, kind: 'backup' | 'restore'): string[] {
  // The URL holds the password: name the variable, never print its value.
  const schema = settings.databaseSchema ? ` --schema=${settings.databaseSchema}` : '';
  return kind === 'backup'
    ? [
        'PostgreSQL: Tollgate does not copy a PostgreSQL database itself; use pg_dump (consistent while serving):',
        `  pg_dump --format=custom${schema} --file=${file} "$DATABASE_URL"`,
      ]
    : [
        'PostgreSQL: restore with pg_restore into a stopped deployment, then migrate and reconcile:',
        `  pg_restore --clean --if-exists --no-owner${schema} --dbname="$DATABASE_URL" ${file}`,
        '  npx tollgate migrate && npx tollgate reconcile',
      ];
}

/** Why `file` is not a Tollgate SQLite database, or null when it is one (and passes quick_check). */
export function notTollgateDatabase(file: string): string | null {
  let db: SQLite.Database | null = null;
  try {
    db = new SQLite(file, { readonly: true, fileMustExist: true });
    const tables = new Set(
      (db.prepare("select name from sqlite_master where type = 'table'").all() as Array<{ name: string }>).map(
        (r) => r.name,
      ),
    );
    const missing = MARKER_TABLES.filter((t) => !tables.has(t));
    if (missing.length) return `not a Tollgate database (no ${missing.join(', ')} table)`;
    const check = db.pragma('quick_check', { simple: true });
    return check === 'ok' ? null : `damaged database: quick_check says ${String(check)}`;
  } catch (err) {
    return `not a SQLite database (${(err as Error).message})`;
  } finally {
    db?.close();
  }
}

function counts(file: string): { users: number; ledger: number } {
  const db = new SQLite(file, { readonly: true, fileMustExist: true });
  try {
    const n = (table: string): number =>
      Number((db.prepare(`select count(*) as n from ${table}`).get() as { n: number }).n);
    return { users: n('users'), ledger: n('ledger') };
  } finally {
    db.close();
  }
}

export async function backupCommand(settings: Settings, args: ParsedArgs, print: Print): Promise<number> {
  const dest = target(args);
  if (settings.databaseUrl) {
    for (const line of pgCommands(settings, dest, 'backup')) print(line);
    return 1;
  }
  const source = join(settings.dataDir, SQLITE_FILE);
  if (!existsSync(source)) throw new UsageError(`no database at ${source} (DATA_DIR); nothing to back up`);
  if (existsSync(dest)) throw new UsageError(`${dest} exists; give a new file name`);
  const db = new SQLite(source, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    // All remaining pages in one step: SQLite restarts a backup whose source another connection wrote to between
    // steps, so small steps could restart forever under a busy gateway; one step reads one WAL snapshot.
    await db.backup(dest, { progress: () => ALL_PAGES });
  } finally {
    db.close();
  }
  const bad = notTollgateDatabase(dest);
  if (bad) {
    print(`backup written to ${dest} but it does not check out: ${bad}`);
    return 1;
  }
  const { users, ledger } = counts(dest);
  print(
    `backup of ${source} written to ${dest}: ${statSync(dest).size} bytes, ${users} users, ${ledger} ledger entries, quick_check ok`,
  );
  return 0;
}

/** A gateway answering on PORT still has the database open: replacing the file under it would lose writes. */
async function gatewayAnswering(port: number): Promise<boolean> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/api/health`, { signal: AbortSignal.timeout(1000) });
    await res.body?.cancel();
    return true;
  } catch {
    return false;
  }
}

export async function restoreCommand(settings: Settings, args: ParsedArgs, print: Print): Promise<number> {
  const source = target(args);
  if (settings.databaseUrl) {
    for (const line of pgCommands(settings, source, 'restore')) print(line);
    return 1;
  }
  if (!existsSync(source)) throw new UsageError(`cannot read ${source}: no such file`);
  const bad = notTollgateDatabase(source);
  if (bad) throw new UsageError(`${source}: ${bad}; nothing changed`);
  const live = join(settings.dataDir, SQLITE_FILE);
  if (existsSync(live) && !notTollgateDatabase(live) && counts(live).users > 0 && !args.flags.force) {
    throw new UsageError(
      `${live} holds data (${counts(live).users} users); pass --force to replace it (it is kept as a .before-restore copy)`,
    );
  }
  if (await gatewayAnswering(settings.port))
    throw new UsageError(`a gateway answers on port ${settings.port}; stop it before restoring`);

  // Copy into a temporary file first, so a failure leaves the live database as it was.
  const incoming = `${live}.restoring`;
  mkdirSync(settings.dataDir, { recursive: true });
  rmSync(incoming, { force: true });
  const src = new SQLite(source, { readonly: true, fileMustExist: true });
  try {
    await src.backup(incoming, { progress: () => ALL_PAGES });
  } finally {
    src.close();
  }
  if (existsSync(live)) {
    const kept = `${live}.before-restore-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    const old = new SQLite(live, { fileMustExist: true });
    try {
      await old.backup(kept, { progress: () => ALL_PAGES });
    } finally {
      old.close();
    }
    print(`the replaced database is kept as ${kept}`);
  }
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${live}${suffix}`, { force: true });
  renameSync(incoming, live);

  const store = openStore({ databaseUrl: null, dataDir: settings.dataDir });
  try {
    const applied = await migrateToLatest(store.db as never, 'sqlite');
    print(
      `restored ${source} to ${live}; ${applied.length ? `migrations applied: ${applied.join(', ')}` : 'migrations current'}`,
    );
    return await reconcileCommand(store.db, print);
  } finally {
    await store.close();
  }
}
