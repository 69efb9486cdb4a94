// npm run bench: the gateway (SQLite in a temp dir, real phone plugin in the sandbox, many keys) against a bare
// Koa handler returning the same JSON, measured in the same run; then reconcile, and the charged total against
// the count of successful calls; then phone lookups per second inside the isolate against plain Node.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { openStore } from '../core/store/database.js';
import { migrateToLatest } from '../core/store/migrate.js';
import { createUser } from '../core/accounts/users.js';
import { createApiKey } from '../core/accounts/api-keys.js';
import { postEntry } from '../core/billing/ledger.js';
import { reconcile } from '../core/billing/reconcile.js';
import { toToken } from '../core/billing/money.js';
import { drive, type LoadResult } from './load.js';
import { benchPhoneLookup } from './phone-lookup.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const KEYS = 50;

function start(args: string[], env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--no-node-snapshot', '--import', 'tsx', ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((ok, fail) => {
    child.stdout!.on('data', (d: Buffer) => {
      if (/listening/.test(d.toString())) ok(child);
    });
    child.once('exit', (code) => fail(new Error(`${args.join(' ')} exited ${code}`)));
  });
}

function line(name: string, r: LoadResult): string {
  return `${name.padEnd(10)} ${r.requestsPerSecond.toFixed(0).padStart(7)} req/s  p50 ${String(r.p50).padStart(3)} ms  p99 ${String(r.p99).padStart(4)} ms  statuses ${JSON.stringify(r.statuses)}`;
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tollgate-bench-'));
  const store = openStore({ databaseUrl: null, dataDir });
  await migrateToLatest(store.db as never, 'sqlite');
  const keys: string[] = [];
  const userIds: number[] = [];
  for (let i = 0; i < KEYS; i++) {
    const user = await createUser(store.db, `bench${i}@example.com`, 'password123');
    await postEntry(store.db, { userId: user.id, amount: 1_000_000_000, kind: 'grant', ref: `bench:${i}` });
    keys.push((await createApiKey(store.db, user.id, 'bench')).secret);
    userIds.push(user.id);
  }
  await store.close();

  const env = { DATA_DIR: dataDir, RATE_LIMIT_PER_SECOND: '1000000', RATE_LIMIT_BURST: '1000000', MAX_IN_FLIGHT_PER_KEY: '1000', LOG_LEVEL: 'warn' };
  const bare = await start([resolve('bench/bare-koa.ts')], { PORT: '18081' });
  const gateway = await start([resolve('core/main.ts'), 'serve'], { ...env, PORT: '18080', OPERATIONS_FILE: resolve('operations.yaml') });
  try {
    await drive(18080, keys, 2, CONNECTIONS); // warm-up: isolates, JIT, caches
    const baseline = await drive(18081, keys, SECONDS, CONNECTIONS);
    const tollgate = await drive(18080, keys, SECONDS, CONNECTIONS);
    console.log(`load: ${SECONDS}s, ${CONNECTIONS} connections, ${KEYS} keys, GET /api/phone with varied numbers`);
    console.log(line('bare koa', baseline));
    console.log(line('tollgate', tollgate));
    console.log(`ratio: tollgate serves ${(tollgate.requestsPerSecond / baseline.requestsPerSecond).toFixed(3)}x the bare Koa throughput; p99 ${tollgate.p99} vs ${baseline.p99} ms`);
  } finally {
    gateway.kill('SIGTERM');
    bare.kill('SIGTERM');
    await new Promise((r) => gateway.once('exit', r));
  }

  const check = openStore({ databaseUrl: null, dataDir });
  const report = await reconcile(check.db);
  const charged = await check.db.selectFrom('ledger').select((eb) => [eb.fn.countAll<number>().as('rows'), eb.fn.sum<number>('amount').as('sum')]).where('kind', '=', 'charge').executeTakeFirstOrThrow();
  const successes = await check.db.selectFrom('call_log').select((eb) => eb.fn.countAll<number>().as('n')).where('status', '=', 200).where('charged', '>', 0).executeTakeFirstOrThrow();
  console.log(`reconcile: ${report.ok ? 'ok' : 'FAILED'} (${report.users} users)`);
  console.log(`charged: ${toToken(-Number(charged.sum))} TOKEN in ${charged.rows} ledger rows; ${successes.n} charged successful calls x 0.005 = ${toToken(Number(successes.n) * 5000)} TOKEN`);
  await check.close();

  const phone = await benchPhoneLookup();
  console.log(`phone lookups inside the isolate: ${phone.lookupsPerSecond.toFixed(0)}/s; plain Node baseline ${phone.baselinePerSecond.toFixed(0)}/s; ratio ${(phone.lookupsPerSecond / phone.baselinePerSecond).toFixed(2)}`);
  if (!report.ok) process.exitCode = 1;
}

await main();
