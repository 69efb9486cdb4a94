// The SQLite billed row against its floor at one fixed rate, CPU per call by thread. npm run bench drives each
// row as fast as it answers, and CPU per call falls as the rate rises (more calls share each wake-up, each batch,
// each commit): the floor, answering faster, was priced at a higher rate than the billed row. Here both serve the
// same requests per second, alternated round by round, and each round prints the process's CPU per answered call
// (all threads, those that ended during the round included), its main thread's, and the rest by thread id.
//   RATE=2000 SECONDS=4 ROUNDS=3 WARMUP=10 node --no-node-snapshot --import ./core/bin/load-ts.mjs bench/billed-threads.ts
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

const hash = await hashPassword('password123');
const [gatewayDb, floorDb] = [await createBenchDatabase(50, hash), await createBenchDatabase(50, hash)];
const [gatewayPort, floorPort] = [await freePort(), await freePort()];
const gateway: Server = {
  name: 'billed',
  port: gatewayPort,
  keys: gatewayDb.keys,
  child: await startServer([resolve('core/main.ts'), 'serve'], {
    DATA_DIR: gatewayDb.dataDir,
    PORT: String(gatewayPort),
    OPERATIONS_FILE: resolve('operations.yaml'),
    RATE_LIMIT_PER_SECOND: '1000000',
    RATE_LIMIT_BURST: '1000000',
    MAX_IN_FLIGHT_PER_KEY: '1000',
    LOG_LEVEL: 'warn',
  }),
};
const floor: Server = {
  name: 'floor',
  port: floorPort,
  keys: floorDb.keys,
  child: await startServer([resolve('bench/floor-server.ts')], { DB: floorDb.file, PORT: String(floorPort) }),
};
try {
  // Warm-up in alternating one-second slices, as fast as each answers (V8 compiles the hot code meanwhile).
  for (let i = 0; i < WARMUP; i++) for (const s of [gateway, floor]) await drive(s.port, s.keys, 1, CONNECTIONS);
  const ratios: string[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    // Who goes first alternates, so a drift over the run meets both alike.
    const [a, b] = i % 2 === 0 ? [gateway, floor] : [floor, gateway];
    const ra = await round(a);
    const rb = await round(b);
    const [billed, fl] = a === gateway ? [ra, rb] : [rb, ra];
    ratios.push(`${(billed.us / fl.us).toFixed(3)} (main ${(billed.mainUs / fl.mainUs).toFixed(3)})`);
  }
  console.log(`billed / floor, CPU per call at ${RATE} req/s: ${ratios.join(', ')}`);
} finally {
  await stopServer(gateway.child);
  await stopServer(floor.child);
}
