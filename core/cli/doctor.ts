// `tollgate doctor`: what an operator checks before (or after) a start, one line each, exit 1 if any fails.
// It changes nothing: no migration is run, no file is created (the data dir is probed with a temporary file).
import { accessSync, constants, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { readSettings, type Settings } from '../config/env.js';
import { createMemoryLogger } from '../kernel/logger.js';
import { holdUntilExit, letGo } from '../sandbox/exit-guard.js';
import { createSandbox } from '../sandbox/sandbox.js';
import { openStore } from '../store/database.js';
import { MIGRATION_NAMES } from '../store/migrate.js';
import { SQLITE_FILE } from './backup.js';
import type { Print } from './commands.js';
import { checkOperations } from './config-check.js';

type Status = 'ok' | 'FAIL' | 'skip';
interface Line {
  status: Status;
  check: string;
  detail: string;
}

const PKG = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  engines: { node: string };
};

function versionAtLeast(actual: string, wanted: string): boolean {
  const a = actual.replace(/^v/, '').split('.').map(Number);
  const w = wanted
    .replace(/^>=\s*/, '')
    .split('.')
    .map(Number);
  for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (w[i] ?? 0)) return (a[i] ?? 0) > (w[i] ?? 0);
  return true;
}

async function guard(check: string, run: () => Promise<[Status, string]> | [Status, string]): Promise<Line> {
  try {
    const [status, detail] = await run();
    return { status, check, detail };
  } catch (err) {
    return { status: 'FAIL', check, detail: (err as Error).message.split('\n')[0] };
  }
}

const hasSnapshotFlag = (): boolean =>
  process.execArgv.includes('--no-node-snapshot') || /--no-node-snapshot/.test(process.env.NODE_OPTIONS ?? '');

async function nativeModules(snapshotOff: boolean): Promise<[Status, string]> {
  const { default: SQLite } = await import('better-sqlite3');
  const db = new SQLite(':memory:');
  const sqliteVersion = (db.prepare('select sqlite_version() as v').get() as { v: string }).v;
  db.close();
  if (!snapshotOff)
    return ['FAIL', `better-sqlite3 ok (SQLite ${sqliteVersion}); isolated-vm not tried without --no-node-snapshot`];
  const { default: ivm } = await import('isolated-vm');
  // Through the sandbox's exit guard: isolated-vm objects left for a GC during Node's teardown abort the process.
  const isolate = holdUntilExit(new ivm.Isolate({ memoryLimit: 16 }));
  try {
    const two = isolate.compileScriptSync('1 + 1').runSync(isolate.createContextSync());
    if (two !== 2) return ['FAIL', 'isolated-vm loaded but computed wrongly'];
  } finally {
    isolate.dispose();
    letGo(isolate);
  }
  return ['ok', `better-sqlite3 (SQLite ${sqliteVersion}), isolated-vm`];
}

async function database(settings: Settings): Promise<[Status, string]> {
  const sqlitePath = join(settings.dataDir, SQLITE_FILE);
  if (!settings.databaseUrl && !existsSync(sqlitePath))
    return ['FAIL', `no database at ${sqlitePath} yet; run tollgate migrate (or start the gateway)`];
  const store = openStore({
    databaseUrl: settings.databaseUrl,
    dataDir: settings.dataDir,
    schema: settings.databaseSchema,
    connectTimeoutMs: settings.dbConnectTimeoutMs,
  });
  try {
    await store.ping();
    const where = settings.databaseUrl
      ? `PostgreSQL${settings.databaseSchema ? ` schema ${settings.databaseSchema}` : ''}`
      : `SQLite ${sqlitePath}`;
    const applied = await store.db
      .selectFrom('kysely_migration' as never)
      .select('name' as never)
      .execute()
      .then(
        (rows) => new Set((rows as Array<{ name: string }>).map((r) => r.name)),
        () => new Set<string>(),
      );
    const pending = MIGRATION_NAMES.filter((m) => !applied.has(m));
    if (pending.length)
      return [
        'FAIL',
        `${where} reachable; ${pending.length} migration(s) pending (${pending.join(', ')}): run tollgate migrate`,
      ];
    return ['ok', `${where} reachable, ${MIGRATION_NAMES.length} migrations current`];
  } finally {
    await store.close();
  }
}

async function redis(settings: Settings): Promise<[Status, string]> {
  if (!settings.redisUrl) return ['skip', 'REDIS_URL unset: limits, counters and cache are per process'];
  const { Redis } = await import('ioredis');
  const client = new Redis(settings.redisUrl, {
    lazyConnect: true,
    connectTimeout: 2000,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  // ioredis rejects with "Connection is closed."; the 'error' event has the cause (ECONNREFUSED, auth, TLS).
  let cause: Error | null = null;
  client.on('error', (err: Error) => void (cause ??= err));
  try {
    await client.connect().catch((err: Error) => {
      const { host, port } = client.options;
      throw new Error(`not reachable at ${host}:${port}: ${(cause ?? err).message}`);
    });
    const pong = await client.ping();
    const info = await client.info('server');
    return [pong === 'PONG' ? 'ok' : 'FAIL', `reachable, Redis ${/redis_version:(\S+)/.exec(info)?.[1] ?? '?'}`];
  } finally {
    client.disconnect();
  }
}

async function plugins(settings: Settings, snapshotOff: boolean): Promise<[Status, string]> {
  if (!snapshotOff) return ['skip', 'not started without --no-node-snapshot'];
  const dirs = settings.pluginDirs ?? [resolve('plugins')];
  const { config, problems } = await checkOperations(settings.operationsFile, process.env, dirs);
  if (!config || problems.length)
    return ['FAIL', `${problems[0] ?? 'operations file does not load'} (tollgate config check lists all)`];
  const sandbox = await createSandbox({ pluginDirs: dirs, logger: createMemoryLogger('warn'), poolSize: 1 });
  try {
    const names = sandbox.names();
    const unavailable = config.operations.filter((o) => o.enabled && !o.availability.available).map((o) => o.code);
    const note = unavailable.length ? `; unavailable until configured: ${unavailable.join(', ')}` : '';
    return ['ok', `${names.length} loaded (${names.join(', ')}), ${config.operations.length} operations${note}`];
  } finally {
    await sandbox.close();
  }
}

function dataDir(settings: Settings): [Status, string] {
  // A missing data dir is created at start, so its nearest existing parent must be writable.
  let dir = settings.dataDir;
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
  accessSync(dir, constants.W_OK);
  const probe = join(dir, `.tollgate-doctor-${process.pid}`);
  writeFileSync(probe, 'ok');
  rmSync(probe);
  return [
    'ok',
    dir === settings.dataDir ? `${dir} writable` : `${settings.dataDir} missing; ${dir} writable, it will be created`,
  ];
}

export async function runDoctor(): Promise<Line[]> {
  const lines: Line[] = [];
  const snapshotOff = hasSnapshotFlag();
  lines.push(
    await guard('node', () => [
      versionAtLeast(process.version, PKG.engines.node) ? 'ok' : 'FAIL',
      `${process.version} (needs ${PKG.engines.node})`,
    ]),
  );
  lines.push(
    await guard('flags', () =>
      snapshotOff
        ? ['ok', '--no-node-snapshot set']
        : ['FAIL', 'run node with --no-node-snapshot (isolated-vm needs it); npx tollgate sets it'],
    ),
  );
  lines.push(await guard('native', () => nativeModules(snapshotOff)));
  let settings: Settings | null = null;
  lines.push(await guard('env', () => ((settings = readSettings()), ['ok', 'environment parsed'])));
  if (!settings)
    return lines.concat(
      ['database', 'redis', 'plugins', 'data dir'].map((check) => ({
        status: 'skip' as const,
        check,
        detail: 'environment does not parse',
      })),
    );
  const s: Settings = settings;
  lines.push(await guard('database', () => database(s)));
  lines.push(await guard('redis', () => redis(s)));
  lines.push(await guard('plugins', () => plugins(s, snapshotOff)));
  lines.push(await guard('data dir', () => dataDir(s)));
  return lines;
}

export async function doctor(print: Print): Promise<number> {
  const lines = await runDoctor();
  for (const l of lines) print(`${l.status.padEnd(4)}  ${l.check.padEnd(8)}  ${l.detail}`);
  return lines.some((l) => l.status === 'FAIL') ? 1 : 0;
}
