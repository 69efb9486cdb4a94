// The SQLite billed row against its floor at one fixed rate, CPU per call by thread. npm run bench drives each
// row as fast as it answers, and CPU per call falls as the rate rises (more calls share each wake-up, each batch,
// each commit): the floor, answering faster, was priced at a higher rate than the billed row. Here both serve the
// same requests per second, alternated round by round, and each round prints the process's CPU per answered call
// (all threads, those that ended during the round included), its main thread's, and the rest by thread id.
// BASELINE=<another checkout> adds that tree's gateway as a third server, on a database of its own, in the same
// rotation: a change of a few microseconds per call is then compared round by round with the tree before it, on the
// same machine in the same minutes (runs minutes apart drift more than that). The other checkout needs its own
// node_modules (a symlink to this one's will do) and its built phone asset.
//   RATE=2000 SECONDS=4 ROUNDS=3 WARMUP=10 [BASELINE=../old] node --no-node-snapshot --import ./core/bin/load-ts.mjs bench/billed-threads.ts
import type { ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { hashPassword } from '../core/accounts/passwords.js';
import { createBenchDatabase } from './bench-db.js';
import { drive } from './load.js';
import { cpuByThread, cpuMicros } from './paired.js';
import { freePort, startServer, stopServer } from './processes.js';

const RATE = Number(process.env.RATE ?? 2000);
const SECONDS = Number(process.env.SECONDS ?? 4);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const WARMUP = Number(process.env.WARMUP ?? 10);
const CONNECTIONS = 32;
/** After a round, for the calls still in flight to be answered before the CPU is read. */
const SETTLE_MS = 300;

interface Server {
  name: string;
  child: ChildProcess;
  port: number;
  keys: string[];
}

interface Round {
  calls: number;
  us: number;
  mainUs: number;
}

async function round(s: Server): Promise<Round> {
  const pid = s.child.pid;
  const [all0, threads0] = [cpuMicros(pid), cpuByThread(pid, true)];
  const load = await drive(s.port, s.keys, SECONDS, CONNECTIONS, 0, 'phone', RATE);
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  const [all1, threads1] = [cpuMicros(pid), cpuByThread(pid, true)];
  const calls = load.statuses['200'] ?? 0;
  const per = (a?: number, b?: number): number => ((b ?? 0) - (a ?? 0)) / Math.max(1, calls);
  const byThread = [...(threads1 ?? [])]
    .map(([name, us]): [string, number] => [name, per(threads0?.get(name) ?? 0, us)])
    .filter(([, us]) => us >= 1)
    .sort((a, b) => b[1] - a[1]);
  const r = { calls, us: per(all0, all1), mainUs: per(threads0?.get(`main#${pid}`), threads1?.get(`main#${pid}`)) };
  console.log(
    `${s.name.padEnd(6)} ${calls} calls (${(calls / SECONDS).toFixed(0)}/s), p99 ${load.p99} ms: ${r.us.toFixed(1)} us/call, main thread ${r.mainUs.toFixed(1)}; by thread ${byThread.map(([n, us]) => `${n} ${us.toFixed(1)}`).join(', ')}`,
  );
  return r;
}

const BASELINE = process.env.BASELINE ? resolve(process.env.BASELINE) : undefined;

const hash = await hashPassword('password123');

/** A gateway of this tree, or of `tree`, on a bench database of its own. */
async function gatewayOf(name: string, tree?: string): Promise<Server> {
  const db = await createBenchDatabase(50, hash);
  const port = await freePort();
  const root = tree ?? resolve('.');
  const child = await startServer(
    [resolve(root, 'core/main.ts'), 'serve'],
    {
      DATA_DIR: db.dataDir,
      PORT: String(port),
      OPERATIONS_FILE: resolve(root, 'operations.yaml'),
      RATE_LIMIT_PER_SECOND: '1000000',
      RATE_LIMIT_BURST: '1000000',
      MAX_IN_FLIGHT_PER_KEY: '1000',
      LOG_LEVEL: 'warn',
    },
    [],
    tree,
  );
  return { name, port, keys: db.keys, child };
}

const gateway = await gatewayOf('billed');
const baseline = BASELINE ? await gatewayOf('base', BASELINE) : undefined;
const floorDb = await createBenchDatabase(50, hash);
const floorPort = await freePort();
const floor: Server = {
  name: 'floor',
  port: floorPort,
  keys: floorDb.keys,
  child: await startServer([resolve('bench/floor-server.ts')], { DB: floorDb.file, PORT: String(floorPort) }),
};
const servers = baseline ? [gateway, baseline, floor] : [gateway, floor];
try {
  // Warm-up in alternating one-second slices, as fast as each answers (V8 compiles the hot code meanwhile).
  for (let i = 0; i < WARMUP; i++) for (const s of servers) await drive(s.port, s.keys, 1, CONNECTIONS);
  const ratios: string[] = [];
  const againstBaseline: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    // Who goes first rotates, so a drift over the run meets every server alike.
    const order = servers.map((_, j) => servers[(i + j) % servers.length]);
    const got = new Map<Server, Round>();
    for (const s of order) got.set(s, await round(s));
    const [billed, fl] = [got.get(gateway) as Round, got.get(floor) as Round];
    ratios.push(`${(billed.us / fl.us).toFixed(3)} (main ${(billed.mainUs / fl.mainUs).toFixed(3)})`);
    if (baseline) againstBaseline.push(billed.us / (got.get(baseline) as Round).us);
  }
  console.log(`billed / floor, CPU per call at ${RATE} req/s: ${ratios.join(', ')}`);
  if (baseline) {
    const median = [...againstBaseline].sort((a, b) => a - b)[againstBaseline.length >> 1];
    console.log(
      `billed / base (${BASELINE}), CPU per call: ${againstBaseline.map((r) => r.toFixed(3)).join(', ')}; median ${median.toFixed(3)}`,
    );
  }
} finally {
  for (const s of servers) await stopServer(s.child);
}
