// Real gateway processes for the scale suites: spawn `core/main.ts serve` against a shared PostgreSQL schema
// and Redis prefix, seed users straight into the database, and drive bounded-concurrency load over HTTP.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse, stringify } from 'yaml';
import { createApiKey } from '../../core/accounts/api-keys.js';
import { createUser } from '../../core/accounts/users.js';
import { postEntry } from '../../core/billing/ledger.js';
import { extendSubscription } from '../../core/billing/subscriptions.js';
import { toMicro } from '../../core/kernel/money.js';
import { openStore, type Store } from '../../core/store/database.js';
import { migrateToLatest } from '../../core/store/migrate.js';
import { childEnv, PG_URL, REDIS_URL } from './backend.js';

export const NODE_ARGS = ['--no-node-snapshot', '--import', './core/bin/load-ts.mjs'];

/**
 * The shared test operations plus a plan with concurrency 3 and `lookup` (the shipped phone plugin, which reaches
 * no network, uncached and charged for every answer: billed in one step after it runs), written to a temp file.
 */
export function scaleOperationsFile(): string {
  const doc = parse(readFileSync(resolve('test/fixtures/operations.test.yaml'), 'utf8')) as {
    plans?: unknown[];
    operations: unknown[];
  };
  doc.operations.push({
    code: 'lookup',
    plugin: 'phone',
    price_per_call: 0.01,
    cache_ttl: 0,
    timeout_ms: 1000,
    input: { type: 'object', required: ['phone'], properties: { phone: { type: 'string' } } },
  });
  doc.plans = [
    ...(doc.plans ?? []),
    {
      id: 'conc3',
      name: 'Concurrency 3',
      price: 1,
      duration_days: 30,
      quota: { calls_per_day: 100000, concurrency: 3, cache_free: false },
      codes: ['echo'],
    },
  ];
  const file = join(mkdtempSync(join(tmpdir(), 'tollgate-scale-')), 'operations.yaml');
  writeFileSync(file, stringify(doc));
  return file;
}

/** Environment of a gateway process: money is the only limit (rate and in-flight caps far above the load). */
export function gatewayEnv(
  schema: string,
  prefix: string,
  operationsFile: string,
  extra: Record<string, string> = {},
): NodeJS.ProcessEnv {
  return childEnv({
    PORT: '0',
    DATABASE_URL: PG_URL,
    DATABASE_SCHEMA: schema,
    REDIS_URL,
    REDIS_PREFIX: prefix,
    OPERATIONS_FILE: operationsFile,
    PLUGIN_DIRS: 'plugins:test/fixtures/plugins',
    DATA_DIR: mkdtempSync(join(tmpdir(), 'tollgate-scale-data-')),
    TEST_SECRET: 'scale',
    RATE_LIMIT_PER_SECOND: '100000',
    RATE_LIMIT_BURST: '100000',
    MAX_IN_FLIGHT_PER_KEY: '10000',
    SANDBOX_POOL_SIZE: '2',
    LOG_LEVEL: 'warn',
    ...extra,
  });
}

export interface Gateway {
  port: number;
  proc: ChildProcess;
  /** Everything the process wrote (stdout + stderr). */
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export async function startGateway(env: NodeJS.ProcessEnv): Promise<Gateway> {
  const proc = spawn(process.execPath, [...NODE_ARGS, 'core/main.ts', 'serve'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  const port = await new Promise<number>((resolvePort, reject) => {
    const timer = setTimeout(() => reject(new Error(`gateway did not start in 30 s:\n${out}`)), 30_000);
    const onData = (b: Buffer): void => {
      out += b.toString();
      const m = /listening on http:\/\/localhost:(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolvePort(Number(m[1]));
      }
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', (b: Buffer) => (out += b.toString()));
    void exited.then(
      (code) => (clearTimeout(timer), reject(new Error(`gateway exited with ${code} before listening:\n${out}`))),
    );
  });
  return {
    port,
    proc,
    output: () => out,
    async stop(signal = 'SIGTERM') {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      return exited;
    },
  };
}

/** `npm run cluster` (core/cluster.ts) as a child, its output collected; `stop` ends it and waits. */
export interface Cluster {
  primary: ChildProcess;
  /** Everything the primary and its workers wrote (stdout + stderr). */
  output(): string;
  stop(): Promise<void>;
}

export function startCluster(env: NodeJS.ProcessEnv): Cluster {
  const primary = spawn(process.execPath, [...NODE_ARGS, 'core/cluster.ts'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  primary.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  primary.stderr!.on('data', (b: Buffer) => (out += b.toString()));
  return {
    primary,
    output: () => out,
    async stop() {
      primary.kill('SIGTERM');
      await new Promise((r) => (primary.exitCode === null ? primary.once('exit', r) : r(null)));
    },
  };
}

/** The port a started cluster's workers share, from the primary's line (PORT=0 gives them one). */
export function clusterPort(output: string): number | undefined {
  const m = /cluster of \d+ workers sharing port (\d+)/.exec(output);
  return m ? Number(m[1]) : undefined;
}

/** Run a CLI command (e.g. reconcile) with the gateway's environment. */
export function runCli(env: NodeJS.ProcessEnv, args: string[]): Promise<{ code: number | null; output: string }> {
  const proc = spawn(process.execPath, [...NODE_ARGS, 'core/main.ts', ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  proc.stdout.on('data', (b: Buffer) => (output += b.toString()));
  proc.stderr.on('data', (b: Buffer) => (output += b.toString()));
  return new Promise((r) => proc.once('exit', (code) => r({ code, output })));
}

export async function openTestStore(schema: string): Promise<Store> {
  const store = openStore({ databaseUrl: PG_URL, dataDir: tmpdir(), schema });
  await migrateToLatest(store.db as never, store.dialect);
  return store;
}

/** A user with `balance` TOKEN, an optional plan, and a key. */
export async function seedUser(
  store: Store,
  balance: string,
  planId?: string,
): Promise<{ userId: number; key: string; keyId: number }> {
  const user = await createUser(
    store.db,
    `scale-${Date.now()}-${Math.random().toString(36).slice(2)}@example.com`,
    'password123',
    'user',
  );
  await postEntry(store.db, {
    userId: user.id,
    amount: toMicro(balance),
    kind: 'grant',
    ref: `scale-grant:${user.id}`,
  });
  if (planId)
    await store.db.transaction().execute((trx) => extendSubscription(trx, user.id, planId, 30, `scale-sub:${user.id}`));
  const { key, secret } = await createApiKey(store.db, user.id, 'scale', {
    rate_limit_per_sec: 100_000,
    rate_limit_burst: 100_000,
  });
  return { userId: user.id, key: secret, keyId: key.id };
}

export interface CallResult {
  status: number;
  port: number;
  deducted?: number;
  requestId?: string;
  /** Set when the connection failed (the process is gone). */
  error?: string;
}

export async function call(port: number, path: string, key: string): Promise<CallResult> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}${path}`, { headers: { 'X-API-Key': key } });
    const body = (await res.json()) as { deducted?: number; request_id?: string };
    return { status: res.status, port, deducted: body.deducted, requestId: body.request_id };
  } catch (err) {
    return { status: 0, port, error: (err as Error).message };
  }
}

/** `total` calls, at most `inFlight` at once; `pick(i)` chooses the port of call i. */
export async function load(
  total: number,
  inFlight: number,
  pick: (i: number) => number,
  path: string,
  key: string,
  onResult?: (r: CallResult, done: number) => void,
): Promise<CallResult[]> {
  const results: CallResult[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < total) {
      const i = next++;
      const r = await call(pick(i), path, key);
      results.push(r);
      onResult?.(r, results.length);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  return results;
}

export function countBy(results: CallResult[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of results) out[String(r.status)] = (out[String(r.status)] ?? 0) + 1;
  return out;
}
