// The PostgreSQL + Redis rows of `npm run bench`: the same billed load against `npm run cluster` with one worker,
// then with two, then the PostgreSQL floor (pg-floor-server.ts), on a database and a Redis key prefix of the bench's
// own (dropped afterwards), each in one-second slices alternated with bare Koa (paired.ts) and with its PostgreSQL
// commits per charged call (pg-commits.ts), then billing checked exactly: reconcile, and the charged total against
// price x charged successful calls. Skipped (with the reason) when PostgreSQL or Redis is not reachable, or with
// BENCH_CLUSTER=0. BENCH_PG_WORKERS picks the rows (default "1,2,0": 0 is the floor). BENCH_PG_PROFILE=<dir> writes a
// CPU profile of every process of the rows there.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { createApiKey } from '../core/accounts/api-keys.js';
import { createUser } from '../core/accounts/users.js';
import { postEntry } from '../core/billing/ledger.js';
import { toToken } from '../core/kernel/money.js';
import { openStore } from '../core/store/database.js';
import { migrateToLatest } from '../core/store/migrate.js';
import { checkBilling } from './bench-db.js';
import { drive, type LoadResult } from './load.js';
import type { CpuTicks } from './machine-cpu.js';
import { paired, type Side } from './paired.js';
import { createBenchPg } from './pg-commits.js';
import { stopServer } from './processes.js';

const PG_URL = process.env.BENCH_PG_URL || 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.BENCH_REDIS_URL || 'redis://127.0.0.1:6379';
/** 16 users with a key each: one balance row per user is what serialises, so fewer users would measure contention. */
const USERS = 16;
const WORKERS = (process.env.BENCH_PG_WORKERS ?? '1,2,0').split(',').map(Number);
const PROFILE_DIR = process.env.BENCH_PG_PROFILE;

async function reachable(): Promise<string | null> {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
  } catch (err) {
    return `PostgreSQL not reachable (${(err as Error).message})`;
  } finally {
    await client.end().catch(() => undefined);
  }
  const redis = new Redis(REDIS_URL, {
    lazyConnect: true,
    connectTimeout: 2000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  try {
    await redis.connect();
    return null;
  } catch (err) {
    return `Redis not reachable (${(err as Error).message})`;
  } finally {
    redis.disconnect();
  }
}

/** `npm run cluster` with `workers` workers, or (0) the PostgreSQL floor server. */
function startCluster(workers: number, env: Record<string, string>): Promise<ChildProcess> {
  const script =
    workers > 0 ? [resolve('core/cluster.ts'), '--workers', String(workers)] : [resolve('bench/pg-floor-server.ts')];
  const waitFor = Math.max(1, workers);
  // Workers are forked with the primary's node arguments, so they write profiles too.
  const profile = PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : [];
  const node = ['--no-node-snapshot', ...profile, '--import', './core/bin/load-ts.mjs'];
  const child = spawn(process.execPath, [...node, ...script], {
    env: { ...process.env, CANARIES: 'off', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let seen = 0;
  return new Promise((ok, fail) => {
    child.stdout!.on('data', (d: Buffer) => {
      seen += (d.toString().match(/listening/g) ?? []).length;
      if (seen >= waitFor) ok(child);
    });
    child.once('exit', (code) => fail(new Error(`cluster of ${workers} exited ${code}`)));
  });
}

const stop = stopServer;

export interface ClusterRow {
  /** 0: the PostgreSQL floor (pg-floor-server.ts). */
  workers: number;
  /** PostgreSQL commits in the bench's database per charged call, warm-up included. */
  commitsPerCall: number;
  /** Of them, the group commit's statements. */
  groupCommitsPerCall: number;
  result: LoadResult;
  /** Bare Koa in the slices alternated with the row's. */
  bare: LoadResult;
  /** The whole machine during the row's slices: the workers share it with PostgreSQL, Redis and the load generator. */
  machine: CpuTicks;
}

/** The rows, each measured against `bare` (bare Koa, already warm) like the SQLite rows. */
export async function benchCluster(
  seconds: number,
  connections: number,
  port: () => Promise<number>,
  bare: Side,
): Promise<{ rows: ClusterRow[]; notes: string[] }> {
  if (process.env.BENCH_CLUSTER === '0')
    return { rows: [], notes: ['PostgreSQL + Redis rows: skipped (BENCH_CLUSTER=0)'] };
  const why = await reachable();
  if (why) return { rows: [], notes: [`PostgreSQL + Redis rows: skipped, ${why}`] };
  const id = randomBytes(4).toString('hex');
  const schema = `bench_${id}`;
  const prefix = `tgbench:${id}:`;
  const benchPg = await createBenchPg(PG_URL);
  let store = openStore({ databaseUrl: benchPg.url, dataDir: '.', schema });
  const rows: ClusterRow[] = [];
  const notes: string[] = [];
  try {
    await migrateToLatest(store.db as never, 'postgres');
    const keys: string[] = [];
    for (let i = 0; i < USERS; i++) {
      const user = await createUser(store.db, `pgbench${i}@example.com`, 'password123', 'user', 'x');
      await postEntry(store.db, { userId: user.id, amount: 1_000_000_000, kind: 'grant', ref: `pgbench:${i}` });
      keys.push((await createApiKey(store.db, user.id, 'bench')).secret);
    }
    // Closed while the rows run: its connections' counts must not land in a row's (pg-commits.ts).
    await store.close();
    for (const workers of WORKERS) {
      const p = await port();
      const charges = await benchPg.charges(schema);
      const groupCommits = await benchPg.groupCommits();
      const commits = await benchPg.commits();
      const env = {
        DATABASE_URL: benchPg.url,
        DATABASE_SCHEMA: schema,
        REDIS_URL,
        REDIS_PREFIX: prefix,
        PORT: String(p),
        OPERATIONS_FILE: resolve('operations.yaml'),
        RATE_LIMIT_PER_SECOND: '1000000',
        RATE_LIMIT_BURST: '1000000',
        MAX_IN_FLIGHT_PER_KEY: '1000',
        LOG_LEVEL: 'warn',
      };
      const child = await startCluster(workers, env);
      try {
        await drive(p, keys, 2, connections); // warm-up
        // No pid: the workers are the primary's children, so its own CPU would not be the row's.
        const r = await paired({ port: p, pid: undefined }, bare, keys, seconds, connections);
        await stop(child);
        const committed = (await benchPg.commits()) - commits;
        const grouped = (await benchPg.groupCommits()) - groupCommits;
        const charged = (await benchPg.charges(schema)) - charges;
        rows.push({
          workers,
          result: r.gateway,
          bare: r.bare,
          machine: r.gatewayMachine,
          commitsPerCall: committed / charged,
          groupCommitsPerCall: grouped / charged,
        });
      } finally {
        if (child.exitCode === null && child.signalCode === null) await stop(child);
      }
    }
    store = openStore({ databaseUrl: benchPg.url, dataDir: '.', schema });
    const c = await checkBilling(store.db);
    notes.push(
      `PostgreSQL + Redis: reconcile ${c.reconciled ? 'ok' : 'FAILED'}; charged ${toToken(c.charged)} TOKEN in ${c.ledgerRows} ledger rows for ${c.successes} charged successful calls x 0.005 (${c.exact ? 'exact' : 'MISMATCH'})`,
    );
    if (!c.ok) process.exitCode = 1;
  } finally {
    await store.close().catch(() => undefined);
    await benchPg.drop().catch(() => undefined);
    const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    let cursor = '0';
    do {
      const [next, found] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      if (found.length) await redis.del(...found);
      cursor = next;
    } while (cursor !== '0');
    redis.disconnect();
  }
  return { rows, notes };
}
