// A gateway row measured against bare Koa under the same background load. Other people's work on a shared machine
// comes and goes within seconds (bare Koa alone moved 11k-31k req/s between runs of one hour), so one long bare
// run followed by long gateway runs compares different machines. Here the two alternate in one-second slices and
// the ratio is of the sums. Also the CPU each server process spent per answered request (Linux /proc, all its
// threads): the figure other load moves least, and what the throughput ratio tends to when the CPU is the limit.
import { readdirSync, readFileSync } from 'node:fs';
import { drive, type LoadResult } from './load.js';
import { addTicks, type CpuTicks, machineTicks } from './machine-cpu.js';

export interface Side {
  port: number;
  pid: number | undefined;
}

export interface PairedResult {
  gateway: LoadResult;
  bare: LoadResult;
  /** CPU microseconds per answered request, when /proc is there. */
  gatewayCpuUs?: number;
  bareCpuUs?: number;
  /** The part of `gatewayCpuUs` spent on the gateway's main thread (the event loop). */
  gatewayMainCpuUs?: number;
  /** The whole machine while the gateway's slices ran (with the load generator on it too). */
  gatewayMachine: CpuTicks;
  /** Share of the gateway's slices its main thread (the event loop) was on a CPU: near 1, it is the limit. */
  gatewayThreadBusy?: number;
  /**
   * Share of those slices the main thread was ready to run but waited for a CPU (Linux schedstat). Busy + waiting
   * near 1 means the event loop is the limit even when the machine shows idle time: on a machine shared with the
   * load generator, a thread woken by a socket often waits behind the thread that woke it.
   */
  gatewayThreadWaiting?: number;
}

/** Nanoseconds a thread has waited, runnable, for a CPU since it started (Linux schedstat), or undefined. */
function runQueueWaitNs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    return Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[1]);
  } catch {
    return undefined;
  }
}

/** utime + stime of a process (all threads; or with `thread`, its main thread only) in microseconds, or undefined
 *  off Linux. */
export function cpuMicros(pid: number | undefined, thread = false): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const fields = readFileSync(thread ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, 'utf8')
      .split(') ')[1]
      .split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100; // USER_HZ is 100 on Linux
  } catch {
    return undefined;
  }
}

/**
 * CPU microseconds of a process by thread name (Linux /proc/<pid>/task/<tid>/comm; the main thread as `main`), or
 * with `byId` by name and thread id (libuv's pool, V8's helpers, isolated-vm's and worker threads are all `node`:
 * their ids, in order of creation, tell them apart), or undefined off Linux. A thread
 * that ended between two reads takes its CPU with it: compare names present in both.
 */
export function cpuByThread(pid: number | undefined, byId = false): Map<string, number> | undefined {
  if (pid === undefined) return undefined;
  try {
    const out = new Map<string, number>();
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        const comm = tid === String(pid) ? 'main' : readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
        const name = byId ? `${comm}#${tid}` : comm;
        const fields = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1].split(' ');
        const us = ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100;
        out.set(name, (out.get(name) ?? 0) + us);
      } catch {
        // the thread ended meanwhile
      }
    }
    return out;
  } catch {
    return undefined;
  }
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

function combine(slices: LoadResult[], seconds: number): LoadResult {
  const statuses: Record<string, number> = {};
  for (const s of slices) for (const [k, v] of Object.entries(s.statuses)) statuses[k] = (statuses[k] ?? 0) + v;
  const total = slices.reduce((a, s) => a + s.total, 0);
  // Percentiles of slices cannot be merged exactly; the median slice is robust to one burst of someone else's load.
  return {
    requestsPerSecond: total / seconds,
    p50: median(slices.map((s) => s.p50)),
    p99: median(slices.map((s) => s.p99)),
    statuses,
    total,
  };
}

export async function paired(
  gateway: Side,
  bare: Side,
  keys: string[],
  seconds: number,
  connections: number,
  repeat = 0,
  code = 'phone',
  /** The gateway's slices at this many requests per second (load.ts `rate`); bare Koa's are never limited. */
  rate = 0,
): Promise<PairedResult> {
  const g: LoadResult[] = [];
  const b: LoadResult[] = [];
  let gCpu = 0;
  let bCpu = 0;
  const gatewayMachine = { busy: 0, total: 0 };
  let threadCpu = 0;
  let threadWaitNs = 0;
  let gatewayWallUs = 0;
  for (let i = 0; i < seconds; i++) {
    const b0 = cpuMicros(bare.pid);
    b.push(await drive(bare.port, keys, 1, connections, repeat));
    const b1 = cpuMicros(bare.pid);
    const g0 = cpuMicros(gateway.pid);
    const t0 = cpuMicros(gateway.pid, true);
    const q0 = runQueueWaitNs(gateway.pid);
    const m0 = machineTicks();
    const w0 = performance.now();
    g.push(await drive(gateway.port, keys, 1, connections, repeat, code, rate));
    gatewayWallUs += (performance.now() - w0) * 1000;
    addTicks(gatewayMachine, m0);
    const t1 = cpuMicros(gateway.pid, true);
    const q1 = runQueueWaitNs(gateway.pid);
    if (q0 !== undefined && q1 !== undefined) threadWaitNs += q1 - q0;
    const g1 = cpuMicros(gateway.pid);
    if (t0 !== undefined && t1 !== undefined) threadCpu += t1 - t0;
    if (b0 !== undefined && b1 !== undefined) bCpu += b1 - b0;
    if (g0 !== undefined && g1 !== undefined) gCpu += g1 - g0;
  }
  const gateway_ = combine(g, seconds);
  const bare_ = combine(b, seconds);
  const known = cpuMicros(gateway.pid) !== undefined && cpuMicros(bare.pid) !== undefined;
  return {
    gateway: gateway_,
    bare: bare_,
    gatewayMachine,
    ...(known ? { gatewayThreadBusy: threadCpu / gatewayWallUs } : {}),
    ...(runQueueWaitNs(gateway.pid) !== undefined ? { gatewayThreadWaiting: threadWaitNs / 1000 / gatewayWallUs } : {}),
    ...(known
      ? {
          gatewayCpuUs: gCpu / Math.max(1, gateway_.total),
          bareCpuUs: bCpu / Math.max(1, bare_.total),
          gatewayMainCpuUs: threadCpu / Math.max(1, gateway_.total),
        }
      : {}),
  };
}
