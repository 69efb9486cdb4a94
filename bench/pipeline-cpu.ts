// CPU per billed call of the gateway's whole pipeline, in process: the services composed as `npm start` composes
// them (SQLite file, writer thread, checkpointer, sandbox, memory state), and GET /api/phone calls with a new number
// each started through the lean door's own steps (newCall, runCall) with IN_FLIGHT of them in flight, as many
// connections would keep them. No HTTP and no load generator: what is left is our code's cost per call and the
// threads it uses (rounds still spread ~10% on a shared machine: compare medians of runs alternated between two
// checkouts). Prints CPU per call of the process and of its main thread per round; THREADS=1 also prints each
// round's CPU per call by thread (the writer thread, V8's helpers, the checkpointer, isolated-vm's). ALLOC=1 (or
// ALLOC=promoted) first prints the main heap's bytes per call by function, from one more round (`allocationSites`).
//   [IN_FLIGHT=32] [ALLOC=1|promoted] [CALLS=20000] [ROUNDS=5] [THREADS=1] node --no-node-snapshot --import ./core/bin/load-ts.mjs bench/pipeline-cpu.ts
import { hashPassword } from '../core/accounts/passwords.js';
import { closeServices, composeServices } from '../core/compose.js';
import { readSettings } from '../core/config/env.js';
import { edgeRequestId } from '../core/http/api-edge.js';
import { createProcessLogger } from '../core/kernel/logger.js';
import { newCall } from '../core/pipeline/begin-call.js';
import { runCall } from '../core/pipeline/index.js';
import { createBenchDatabase } from './bench-db.js';
import { cpuByThread, cpuMicros } from './paired.js';

const IN_FLIGHT = Number(process.env.IN_FLIGHT ?? 32);
const CALLS = Number(process.env.CALLS ?? 20_000);
const ROUNDS = Number(process.env.ROUNDS ?? 5);

const bench = await createBenchDatabase(50, await hashPassword('password123'));
const settings = readSettings({
  ...process.env,
  DATA_DIR: bench.dataDir,
  RATE_LIMIT_PER_SECOND: '1000000',
  RATE_LIMIT_BURST: '1000000',
  MAX_IN_FLIGHT_PER_KEY: '1000',
  CANARIES: 'off',
});
const s = await composeServices(settings, { logger: createProcessLogger('warn', 'json'), watchOperations: false });

let sent = 0;
let refused = 0;
/** One call as the lean door starts it, answered (not written: there is no socket). */
async function oneCall(): Promise<void> {
  const n = sent++;
  const phone = `13${String(800000000 + ((n * 7919) % 199999999)).padStart(9, '0')}`;
  const call = newCall(
    {
      requestId: edgeRequestId(),
      startedNs: process.hrtime.bigint(),
      method: 'GET',
      path: '/api/phone',
      ip: '127.0.0.1',
      headers: { 'x-api-key': bench.keys[n % bench.keys.length], host: '127.0.0.1' },
      query: { phone },
      body: undefined,
      bodyKind: 'none',
    },
    s,
  );
  const answer = await runCall(call, s);
  if (answer.status !== 200) refused++;
}

/** CPU per call by thread between two readings, the threads that used any. */
function byThread(before: Map<string, number> | undefined, after: Map<string, number> | undefined, calls: number) {
  return [...(after ?? [])]
    .map(([name, us]) => `${name} ${((us - (before?.get(name) ?? 0)) / calls).toFixed(1)}`)
    .filter((x) => !x.endsWith(' 0.0'))
    .join(', ');
}

/**
 * Bytes the main heap allocates per call and where (by function), from V8's sampling heap profiler with collected
 * objects kept in the samples, so short-lived garbage counts: that is what scavenges cost. ALLOC=promoted keeps
 * only what outlived its scavenges (moved to the old generation, which mark-compacts pay for). A count, not a
 * timing: it tells a change of a few per cent where CPU rounds spread ~10%.
 */
async function allocationSites(calls: number, promotedOnly: boolean): Promise<void> {
  const { Session } = await import('node:inspector/promises');
  const session = new Session();
  session.connect();
  await session.post('HeapProfiler.startSampling', {
    samplingInterval: 512,
    includeObjectsCollectedByMinorGC: !promotedOnly,
    includeObjectsCollectedByMajorGC: true,
  });
  await round(calls);
  const { profile } = await session.post('HeapProfiler.stopSampling');
  session.disconnect();
  type Node = (typeof profile)['head'];
  const bySite = new Map<string, number>();
  const walk = (node: Node): void => {
    const f = node.callFrame;
    const site = `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\/(core|node_modules)\//, '$1/')}:${f.lineNumber + 1}`;
    bySite.set(site, (bySite.get(site) ?? 0) + node.selfSize);
    for (const child of node.children) walk(child);
  };
  walk(profile.head);
  const total = [...bySite.values()].reduce((a, b) => a + b, 0);
  const what = promotedOnly ? 'promoted to the old generation' : 'allocated';
  console.log(
    `main heap: ${(total / calls).toFixed(0)} bytes ${what} per call; by function (its first line), above 1%:`,
  );
  for (const [site, bytes] of [...bySite].sort((a, b) => b[1] - a[1]))
    if (bytes >= total / 100) console.log(`  ${(bytes / calls).toFixed(0).padStart(6)} B  ${site}`);
}

/** `calls` calls, IN_FLIGHT at a time; CPU per call of the process and of the main thread, in microseconds. */
async function round(calls: number): Promise<{ all: number; main: number }> {
  const [cpu0, main0] = [process.cpuUsage(), cpuMicros(process.pid, true) ?? 0];
  const t0 = cpuByThread(process.pid, true);
  let started = 0;
  const lane = async (): Promise<void> => {
    while (started < calls) {
      started++;
      await oneCall();
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
  const cpu = process.cpuUsage(cpu0);
  if (process.env.THREADS) console.log(byThread(t0, cpuByThread(process.pid, true), calls));
  return { all: (cpu.user + cpu.system) / calls, main: ((cpuMicros(process.pid, true) ?? 0) - main0) / calls };
}

await round(CALLS); // warm-up: isolates booted, code compiled, caches at their working size
if (process.env.ALLOC) await allocationSites(CALLS, process.env.ALLOC === 'promoted');
const rounds = [];
for (let r = 0; r < ROUNDS; r++) rounds.push(await round(CALLS));
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const us = (xs: number[]): string => xs.map((x) => x.toFixed(1)).join(' ');
console.log(`${IN_FLIGHT} in flight, ${CALLS} calls a round, ${ROUNDS} rounds; CPU per billed call in us`);
console.log(`all threads ${us(rounds.map((r) => r.all))}  main thread ${us(rounds.map((r) => r.main))}`);
console.log(
  `medians: all threads ${median(rounds.map((r) => r.all)).toFixed(1)}, main thread ${median(rounds.map((r) => r.main)).toFixed(1)}; refused ${refused}`,
);
await closeServices(s);
