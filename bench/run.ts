// npm run bench: the gateway (SQLite in a temp dir, real phone plugin in the sandbox, many keys) against a bare
// Koa handler returning the same JSON, measured in the same run, and the floor of the billed row on this machine
// (floor-server.ts); then reconcile, and the charged total against the count of successful calls, for both; then
// phone lookups per second inside the isolate against plain Node; then a configured upstream against the same
// fetch in a hand-written plugin (upstream-rows.ts). BENCH_ROWS=upstream runs only those two rows, BENCH_ROWS=pg only
// the PostgreSQL + Redis rows (cluster-rows.ts). Every row alternates with bare Koa in one-second slices (paired.ts).
import { readdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { hashPassword } from '../core/accounts/passwords.js';
import { billingLines, createBenchDatabase } from './bench-db.js';
import { benchCluster } from './cluster-rows.js';
import { drive, type LoadResult } from './load.js';
import { machineBusyText } from './machine-cpu.js';
import { type PairedResult, paired } from './paired.js';
import { benchPhoneLookup } from './phone-lookup.js';
import { freePort, startServer } from './processes.js';
import { summariseProfile } from './profile-summary.js';
import { benchUpstream, type UpstreamRows } from './upstream-rows.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const KEYS = 50;
const CACHED_NUMBERS = 200;
/**
 * BENCH_WARMUP_SECONDS: load on each server (gateway and floors alike) before its rows are measured, default 10. The
 * rows price a long-running server: under load V8 keeps compiling on its helper threads for about 10 s (traced with
 * --trace-opt), and with 2 s of warm-up that one-time CPU was billed to the first rows' calls, the gateway's more
 * than the floor's because it has more code (docs/performance.md).
 */
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 10);
/** `npm run bench -- --profile`: the gateway writes a CPU profile of the measured load, summarised at the end. */
const PROFILE = process.argv.includes('--profile');
/** BENCH_ROWS=upstream: only bare Koa and the two upstream rows (upstream-rows.ts). */
const ONLY_UPSTREAM = process.env.BENCH_ROWS === 'upstream';
/** BENCH_ROWS=pg: only bare Koa and the PostgreSQL + Redis rows (BENCH_PG_WORKERS picks them, cluster-rows.ts). */
const ONLY_PG = process.env.BENCH_ROWS === 'pg';
/** BENCH_ROWS=sqlite: only the billed row and the two floor rows, beside bare Koa (then reconcile). */
const ONLY_SQLITE = process.env.BENCH_ROWS === 'sqlite';

const start = startServer;

function line(name: string, r: LoadResult): string {
  return `${name.padEnd(10)} ${r.requestsPerSecond.toFixed(0).padStart(7)} req/s  p50 ${String(r.p50).padStart(3)} ms  p99 ${String(r.p99).padStart(4)} ms  statuses ${JSON.stringify(r.statuses)}`;
}

const threadBusy = (r: PairedResult): string =>
  r.gatewayThreadBusy === undefined
    ? ''
    : `event loop ${(100 * r.gatewayThreadBusy).toFixed(0)}% busy${r.gatewayThreadWaiting === undefined ? '' : ` + ${(100 * r.gatewayThreadWaiting).toFixed(0)}% waiting for a CPU`}, `;
const cpu = (us: number | undefined, mainUs?: number): string =>
  us === undefined
    ? ''
    : `  cpu ${us.toFixed(0)} us/call${mainUs === undefined ? '' : ` (main thread ${mainUs.toFixed(0)})`}`;

function printRow(name: string, r: PairedResult, what: string, goal: number | null): void {
  const ratio = r.gateway.requestsPerSecond / r.bare.requestsPerSecond;
  const cpuRatio = r.gatewayCpuUs && r.bareCpuUs ? `, cpu ratio ${(r.bareCpuUs / r.gatewayCpuUs).toFixed(3)}` : '';
  console.log(`${line('bare koa', r.bare)}${cpu(r.bareCpuUs)}`);
  console.log(
    `${line(name, r.gateway)}${cpu(r.gatewayCpuUs, r.gatewayMainCpuUs)}  ratio ${ratio.toFixed(3)}${cpuRatio}${goal === null ? '' : ` (goal ${goal})`}  ${threadBusy(r)}${machineBusyText(r.gatewayMachine)}  ${what}`,
  );
}

function printUpstream(u: UpstreamRows): void {
  for (const [name, r, what] of u.rows) printRow(name, r, what, null);
  const [c, p] = u.rows.map(([, r]) => r.gateway.requestsPerSecond);
  const windows = u.windows
    ? ` (whole windows: ${Object.entries(u.windows)
        .map(([code, w]) => `${code} ${w.cpuUs.toFixed(0)} us x ${w.calls}`)
        .join(', ')}; per slice ${u.sliceCpuRatio?.toFixed(3) ?? '-'})`
    : '';
  console.log(
    `configured upstream / hand-written plugin${u.rate > 0 ? `, both driven at ${u.rate} req/s` : ''}: throughput ${(c / p).toFixed(3)}${u.cpuRatio === undefined ? '' : `, gateway cpu per call ${u.cpuRatio.toFixed(3)} (goal <= 1.10)${windows}`}`,
  );
  for (const [code, w] of Object.entries(u.windows ?? {}))
    console.log(
      `  ${code} gateway cpu by thread (name#id), us per call: ${Object.entries(w.byThread)
        .filter(([, us]) => us >= 2)
        .sort((a, b) => b[1] - a[1])
        .map(([name, us]) => `${name} ${us.toFixed(1)}`)
        .join(', ')}`,
    );
  if (u.profile) console.log(u.profile);
}

async function onlyUpstream(passwordHash: string): Promise<void> {
  const barePort = await freePort();
  const bare = await start([resolve('bench/bare-koa.ts')], { PORT: String(barePort) });
  try {
    await drive(barePort, ['warm-up'], 1, CONNECTIONS);
    printUpstream(
      await benchUpstream(start, freePort, { port: barePort, pid: bare.pid }, SECONDS, CONNECTIONS, passwordHash),
    );
  } finally {
    bare.kill('SIGTERM');
  }
}

/** The PostgreSQL + Redis rows, each as a ratio to the bare Koa slices alternated with it. */
function printCluster(cluster: Awaited<ReturnType<typeof benchCluster>>): void {
  for (const { workers, result, bare, machine, commitsPerCall, groupCommitsPerCall } of cluster.rows) {
    const name = workers > 0 ? `pg ${workers}w` : 'pg floor';
    const what =
      workers > 0
        ? `billed, ${workers} worker${workers > 1 ? 's' : ''} (npm run cluster), 16 users`
        : "the billed call's lookup and its group-committed writes on PostgreSQL only (pg-floor-server.ts)";
    console.log(line('bare koa', bare));
    console.log(
      `${line(name, result)}  ratio ${(result.requestsPerSecond / bare.requestsPerSecond).toFixed(3)}  PostgreSQL commits per charged call ${commitsPerCall.toFixed(3)} (group commit ${groupCommitsPerCall.toFixed(3)})  ${machineBusyText(machine)}  ${what}`,
    );
  }
  for (const note of cluster.notes) console.log(note);
}

async function onlyPg(): Promise<void> {
  const barePort = await freePort();
  const bare = await start([resolve('bench/bare-koa.ts')], { PORT: String(barePort) });
  try {
    await drive(barePort, ['warm-up'], 1, CONNECTIONS);
    const cluster = await benchCluster(SECONDS, CONNECTIONS, freePort, { port: barePort, pid: bare.pid });
    console.log(
      `load: ${SECONDS} x 1 s slices per row alternating with bare Koa, ${CONNECTIONS} connections; load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
    printCluster(cluster);
  } finally {
    bare.kill('SIGTERM');
  }
}

async function main(): Promise<void> {
  const passwordHash = await hashPassword('password123');
  if (ONLY_UPSTREAM) return onlyUpstream(passwordHash);
  if (ONLY_PG) return onlyPg();
  const { dataDir, keys, planKeys } = await createBenchDatabase(KEYS, passwordHash);
  const floorDb = await createBenchDatabase(KEYS, passwordHash);
  const env = {
    DATA_DIR: dataDir,
    RATE_LIMIT_PER_SECOND: '1000000',
    RATE_LIMIT_BURST: '1000000',
    MAX_IN_FLIGHT_PER_KEY: '1000',
    LOG_LEVEL: 'warn',
  };
  const [barePort, gatewayPort, floorPort] = [await freePort(), await freePort(), await freePort()];
  const bare = await start([resolve('bench/bare-koa.ts')], { PORT: String(barePort) });
  const k = { port: barePort, pid: bare.pid };
  const profileDir = join(dataDir, 'profile');
  const profileArgs = PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const gatewayEnv = { ...env, PORT: String(gatewayPort), OPERATIONS_FILE: resolve('operations.yaml') };
  const rows: Array<[string, PairedResult, string, number | null]> = [];
  let upstream: UpstreamRows | undefined;
  let cluster: Awaited<ReturnType<typeof benchCluster>> | undefined;
  try {
    const gateway = await start([resolve('core/main.ts'), 'serve'], gatewayEnv, profileArgs);
    try {
      await drive(gatewayPort, keys, WARMUP_SECONDS, CONNECTIONS); // warm-up: isolates, JIT, caches
      await drive(barePort, keys, 1, CONNECTIONS);
      const g = { port: gatewayPort, pid: gateway.pid };
      const billed = await paired(g, k, keys, SECONDS, CONNECTIONS);
      rows.push(['billed', billed, 'new number each call, no plan: hold, plugin, capture + ledger + call log', 0.4]);
      if (!ONLY_SQLITE) {
        const quota = await paired(g, k, planKeys, SECONDS, CONNECTIONS);
        await drive(gatewayPort, planKeys, 1, CONNECTIONS, CACHED_NUMBERS); // fill the cache with these numbers
        const cacheHits = await paired(g, k, planKeys, SECONDS, CONNECTIONS, CACHED_NUMBERS);
        rows.push(
          ['quota', quota, 'new number each call inside the Pro plan count quota', 0.4],
          ['cache hit', cacheHits, `${CACHED_NUMBERS} numbers repeated, Pro plan (cache hits free)`, 0.6],
        );
      }
    } finally {
      gateway.kill('SIGTERM');
      await new Promise((r) => gateway.once('exit', r));
    }
    // The floor (floor-server.ts): the billed row's lookup and writes with nothing else, on a database of its own;
    // then the same without the two per-user indexes, whose pages every charge writes (what the schema costs).
    const floors: Array<[string, Record<string, string>, string]> = [
      ['floor', {}, 'the billed row with nothing but its lookup and its writes, all on one thread (floor-server.ts)'],
      [
        'floor -idx',
        { WITHOUT_USER_INDEXES: '1' },
        'the floor without the indexes ledger_user_time, call_log_user_time',
      ],
    ];
    for (const [name, extra, what] of floors) {
      const floor = await start([resolve('bench/floor-server.ts')], {
        DB: floorDb.file,
        PORT: String(floorPort),
        ...extra,
      });
      try {
        await drive(floorPort, floorDb.keys, WARMUP_SECONDS, CONNECTIONS);
        const r = await paired({ port: floorPort, pid: floor.pid }, k, floorDb.keys, SECONDS, CONNECTIONS);
        rows.push([name, r, what, null]);
      } finally {
        floor.kill('SIGTERM');
        await new Promise((r) => floor.once('exit', r));
      }
    }
    if (!ONLY_SQLITE) {
      upstream = await benchUpstream(start, freePort, k, SECONDS, CONNECTIONS, passwordHash);
      cluster = await benchCluster(SECONDS, CONNECTIONS, freePort, k); // PostgreSQL + Redis, one worker then two
    }
  } finally {
    bare.kill('SIGTERM');
  }
  // Other work on the machine moves absolute figures; each row alternates with bare Koa (bench/paired.ts).
  console.log(
    `load: ${SECONDS} x 1 s slices per row alternating with bare Koa, ${CONNECTIONS} connections, ${KEYS} keys per row, GET /api/phone; load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  for (const [name, r, what, goal] of rows) printRow(name, r, what, goal);
  const billedCpu = rows[0][1].gatewayCpuUs;
  const floorRow = rows.find(([name]) => name === 'floor')?.[1];
  if (billedCpu && floorRow?.gatewayCpuUs)
    console.log(
      `billed / floor: cpu per call ${(billedCpu / floorRow.gatewayCpuUs).toFixed(3)} (goal <= 1.5), throughput ${(rows[0][1].gateway.requestsPerSecond / floorRow.gateway.requestsPerSecond).toFixed(3)} (goal >= 0.85)`,
    );
  if (upstream) printUpstream(upstream);

  const gatewayBilling = await billingLines(dataDir);
  for (const l of gatewayBilling.lines) console.log(l);
  const floorBilling = await billingLines(floorDb.dataDir);
  console.log(`floor: ${floorBilling.lines.join('; ')}`);

  if (PROFILE) {
    // One profile per thread; the gateway's main thread is the busiest.
    const summaries = readdirSync(profileDir).map((f) => summariseProfile(join(profileDir, f)));
    console.log(summaries.sort((a, b) => b.busy - a.busy)[0].text);
  }

  if (ONLY_SQLITE) {
    if (!gatewayBilling.ok || !floorBilling.ok) process.exitCode = 1;
    return;
  }
  if (cluster) printCluster(cluster);

  const phone = await benchPhoneLookup();
  console.log(
    `phone lookups inside the isolate: ${phone.lookupsPerSecond.toFixed(0)}/s; plain Node baseline ${phone.baselinePerSecond.toFixed(0)}/s; ratio ${(phone.lookupsPerSecond / phone.baselinePerSecond).toFixed(2)}`,
  );
  if (!gatewayBilling.ok || !floorBilling.ok) process.exitCode = 1;
}

await main();
