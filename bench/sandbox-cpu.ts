// CPU per call of the phone plugin through the real sandbox (createSandbox, its isolate pool and batches: what
// run-plugin.ts calls), BATCH calls per event-loop turn as a loaded gateway makes them, against the floor's way of
// doing the same lookups (bench/floor-server.ts: one synchronous isolate call for the turn's numbers). No HTTP, no
// database, no load generator: the sandbox's own cost per call, steady enough to compare two trees a microsecond
// apart. Each round alternates the two and prints CPU per call of the whole process and of its main thread.
//   [BATCH=16] [CALLS=40000] [ROUNDS=5] node --no-node-snapshot --import ./core/bin/load-ts.mjs bench/sandbox-cpu.ts
import { readFileSync } from 'node:fs';
import { createProcessLogger } from '../core/kernel/logger.js';
import { createSandbox } from '../core/sandbox/sandbox.js';
import { phoneLookupMany } from './phone-lookup.js';

const BATCH = Number(process.env.BATCH ?? 16);
const CALLS = Number(process.env.CALLS ?? 40_000);
const ROUNDS = Number(process.env.ROUNDS ?? 5);
/** One options object for every call, as an operation's. */
const OPTIONS = {};

/** This thread's CPU so far, in microseconds (/proc: utime + stime, in clock ticks of 10 ms). */
function mainThreadMicros(): number {
  const fields = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

let seed = 7;
/** Mainland mobile numbers spread over the segments, the same sequence for both ways. */
function nextPhone(): string {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return `1${[3, 5, 8][seed % 3]}${String(seed).padStart(9, '0').slice(-9)}`;
}

interface Cost {
  all: number;
  main: number;
}

async function measure(turn: () => Promise<unknown>): Promise<Cost> {
  const [cpu0, main0] = [process.cpuUsage(), mainThreadMicros()];
  for (let done = 0; done < CALLS; done += BATCH) await turn();
  const cpu = process.cpuUsage(cpu0);
  return { all: (cpu.user + cpu.system) / CALLS, main: (mainThreadMicros() - main0) / CALLS };
}

const sandbox = await createSandbox({ pluginDirs: ['plugins'], logger: createProcessLogger('warn', 'json') });
const viaSandbox = (): Promise<unknown> => {
  const runs = [];
  for (let i = 0; i < BATCH; i++)
    runs.push(
      sandbox.run({
        plugin: 'phone',
        operation: 'phone',
        input: { phone: nextPhone() },
        options: OPTIONS,
        timeoutMs: 5000,
        requestId: 'bench',
        logKey: 'key:1',
      }),
    );
  return Promise.all(runs);
};

const { isolate, lookupMany } = await phoneLookupMany();
const viaFloor = (): Promise<unknown> => {
  const phones = [];
  for (let i = 0; i < BATCH; i++) phones.push(nextPhone());
  const outcomes = lookupMany.applySync(undefined, [phones], { arguments: { copy: true }, result: { copy: true } });
  for (const o of outcomes) JSON.stringify(o.data); // the floor writes each answer's data
  return new Promise((r) => setImmediate(r));
};

await measure(viaSandbox); // warm-up: isolates booted, code compiled
await measure(viaFloor);
const rows: Array<[Cost, Cost]> = [];
for (let r = 0; r < ROUNDS; r++) rows.push([await measure(viaSandbox), await measure(viaFloor)]);
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const us = (xs: number[]): string => xs.map((x) => x.toFixed(1)).join(' ');
const [sb, fl] = [rows.map((r) => r[0]), rows.map((r) => r[1])];
console.log(`${BATCH} calls a turn, ${CALLS} calls a round, ${ROUNDS} rounds; CPU per call in us`);
console.log(`sandbox  all threads ${us(sb.map((c) => c.all))}  main thread ${us(sb.map((c) => c.main))}`);
console.log(`floor    all threads ${us(fl.map((c) => c.all))}  main thread ${us(fl.map((c) => c.main))}`);
const [s, f] = [median(sb.map((c) => c.all)), median(fl.map((c) => c.all))];
console.log(`medians: sandbox ${s.toFixed(1)}, floor ${f.toFixed(1)}, sandbox / floor ${(s / f).toFixed(2)}`);
await sandbox.close();
isolate.dispose();
