// npm run bench: the gateway (SQLite in a temp dir, real phone plugin in the sandbox, many keys) against a bare
// Koa handler returning the same JSON, measured in the same run; then reconcile, and the charged total against
// the count of successful calls; then phone lookups per second inside the isolate against plain Node.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createApiKey } from '../core/accounts/api-keys.js';
import { hashPassword } from '../core/accounts/passwords.js';
import { createUser } from '../core/accounts/users.js';
import { postEntry } from '../core/billing/ledger.js';
import { reconcile } from '../core/billing/reconcile.js';
import { extendSubscription } from '../core/billing/subscriptions.js';
import { toToken } from '../core/kernel/money.js';
import { openStore } from '../core/store/database.js';
import { migrateToLatest } from '../core/store/migrate.js';
import { benchCluster } from './cluster-rows.js';
import { drive, type LoadResult } from './load.js';
import { machineBusyText } from './machine-cpu.js';
import { type PairedResult, paired } from './paired.js';
import { benchPhoneLookup } from './phone-lookup.js';
import { summariseProfile } from './profile-summary.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const KEYS = 50;
const CACHED_NUMBERS = 200;
/** `npm run bench -- --profile`: the gateway writes a CPU profile of the measured load, summarised at the end. */
const PROFILE = process.argv.includes('--profile');

/** A port nobody listens on now: other benches may run on this machine at the same time. */
function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const server = createServer().once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => ok(port));
    });
  });
}

function start(args: string[], env: Record<string, string>, nodeArgs: string[] = []): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    ['--no-node-snapshot', ...nodeArgs, '--import', './core/bin/load-ts.mjs', ...args],
    {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
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
  // One scrypt (N=2^17, ~0.25 s) shared by every bench user instead of one each: they never log in.
  const passwordHash = await hashPassword('password123');
  for (let i = 0; i < KEYS; i++) {
    const user = await createUser(store.db, `bench${i}@example.com`, 'password123', 'user', passwordHash);
    await postEntry(store.db, { userId: user.id, amount: 1_000_000_000, kind: 'grant', ref: `bench:${i}` });
    keys.push((await createApiKey(store.db, user.id, 'bench')).secret);
    userIds.push(user.id);
  }
  // The same number of users on the Pro plan (20,000 free calls a day, cache hits free).
  const planKeys: string[] = [];
  for (let i = 0; i < KEYS; i++) {
    const user = await createUser(store.db, `plan${i}@example.com`, 'password123', 'user', passwordHash);
    await store.db.transaction().execute((trx) => extendSubscription(trx, user.id, 'pro', 30, `bench-plan:${i}`));
    planKeys.push((await createApiKey(store.db, user.id, 'bench-plan')).secret);
  }
  await store.close();

  const env = {
    DATA_DIR: dataDir,
    RATE_LIMIT_PER_SECOND: '1000000',
    RATE_LIMIT_BURST: '1000000',
    MAX_IN_FLIGHT_PER_KEY: '1000',
    LOG_LEVEL: 'warn',
  };
  const [barePort, gatewayPort] = [await freePort(), await freePort()];
  let bareRps = 0;
  const bare = await start([resolve('bench/bare-koa.ts')], { PORT: String(barePort) });
  const profileDir = join(dataDir, 'profile');
  const profileArgs = PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const gatewayEnv = { ...env, PORT: String(gatewayPort), OPERATIONS_FILE: resolve('operations.yaml') };
  const gateway = await start([resolve('core/main.ts'), 'serve'], gatewayEnv, profileArgs).catch((err: Error) => {
    bare.kill('SIGTERM');
    throw err;
  });
  try {
    await drive(gatewayPort, keys, 2, CONNECTIONS); // warm-up: isolates, JIT, caches
    await drive(barePort, keys, 1, CONNECTIONS);
    const g = { port: gatewayPort, pid: gateway.pid };
    const k = { port: barePort, pid: bare.pid };
    const tollgate = await paired(g, k, keys, SECONDS, CONNECTIONS);
    const quota = await paired(g, k, planKeys, SECONDS, CONNECTIONS);
    await drive(gatewayPort, planKeys, 1, CONNECTIONS, CACHED_NUMBERS); // fill the cache with these numbers
    const cacheHits = await paired(g, k, planKeys, SECONDS, CONNECTIONS, CACHED_NUMBERS);
    // Other work on the machine moves absolute figures; each row alternates with bare Koa (bench/paired.ts).
    console.log(
      `load: ${SECONDS} x 1 s slices per row alternating with bare Koa, ${CONNECTIONS} connections, ${KEYS} keys per row, GET /api/phone; load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
    const rows: Array<[string, PairedResult, string, number]> = [
      ['billed', tollgate, 'new number each call, no plan: hold, plugin, capture + ledger + call log', 0.4],
      ['quota', quota, 'new number each call inside the Pro plan count quota', 0.4],
      ['cache hit', cacheHits, `${CACHED_NUMBERS} numbers repeated, Pro plan (cache hits free)`, 0.6],
    ];
    const threadBusy = (r: PairedResult): string =>
      r.gatewayThreadBusy === undefined
        ? ''
        : `event loop ${(100 * r.gatewayThreadBusy).toFixed(0)}% busy${r.gatewayThreadWaiting === undefined ? '' : ` + ${(100 * r.gatewayThreadWaiting).toFixed(0)}% waiting for a CPU`}, `;
    const cpu = (us: number | undefined): string => (us === undefined ? '' : `  cpu ${us.toFixed(0)} us/call`);
    for (const [name, r, what, goal] of rows) {
      const ratio = r.gateway.requestsPerSecond / r.bare.requestsPerSecond;
      const cpuRatio = r.gatewayCpuUs && r.bareCpuUs ? `, cpu ratio ${(r.bareCpuUs / r.gatewayCpuUs).toFixed(3)}` : '';
      console.log(`${line('bare koa', r.bare)}${cpu(r.bareCpuUs)}`);
      console.log(
        `${line(name, r.gateway)}${cpu(r.gatewayCpuUs)}  ratio ${ratio.toFixed(3)}${cpuRatio} (goal ${goal})  ${threadBusy(r)}${machineBusyText(r.gatewayMachine)}  ${what}`,
      );
    }
    bareRps = tollgate.bare.requestsPerSecond;
  } finally {
    gateway.kill('SIGTERM');
    bare.kill('SIGTERM');
    await new Promise((r) => gateway.once('exit', r));
  }

  const check = openStore({ databaseUrl: null, dataDir });
  const report = await reconcile(check.db);
  const charged = await check.db
    .selectFrom('ledger')
    .select((eb) => [eb.fn.countAll<number>().as('rows'), eb.fn.sum<number>('amount').as('sum')])
    .where('kind', '=', 'charge')
    .executeTakeFirstOrThrow();
  const successes = await check.db
    .selectFrom('call_log')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('status', '=', 200)
    .where('charged', '>', 0)
    .executeTakeFirstOrThrow();
  console.log(`reconcile: ${report.ok ? 'ok' : 'FAILED'} (${report.users} users)`);
  console.log(
    `charged: ${toToken(-Number(charged.sum))} TOKEN in ${charged.rows} ledger rows; ${successes.n} charged successful calls x 0.005 = ${toToken(Number(successes.n) * 5000)} TOKEN`,
  );
  await check.close();

  if (PROFILE) {
    // One profile per thread; the gateway's main thread is the busiest.
    const summaries = readdirSync(profileDir).map((f) => summariseProfile(join(profileDir, f)));
    console.log(summaries.sort((a, b) => b.busy - a.busy)[0].text);
  }

  // PostgreSQL + Redis, one worker then two, against the bare Koa figure of this run.
  const cluster = await benchCluster(SECONDS, CONNECTIONS, freePort);
  for (const { workers, result, machine } of cluster.rows) {
    console.log(
      `${line(`pg ${workers}w`, result)}  ratio ${(result.requestsPerSecond / bareRps).toFixed(3)}  ${machineBusyText(machine)}  billed, ${workers} worker${workers > 1 ? 's' : ''} (npm run cluster), 16 users`,
    );
  }
  for (const note of cluster.notes) console.log(note);

  const phone = await benchPhoneLookup();
  console.log(
    `phone lookups inside the isolate: ${phone.lookupsPerSecond.toFixed(0)}/s; plain Node baseline ${phone.baselinePerSecond.toFixed(0)}/s; ratio ${(phone.lookupsPerSecond / phone.baselinePerSecond).toFixed(2)}`,
  );
  if (!report.ok) process.exitCode = 1;
}

await main();
