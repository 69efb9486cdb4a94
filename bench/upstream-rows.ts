// The upstream rows of npm run bench: the same fetch-and-pick against a stub upstream on this machine, once as a
// configured upstream (operations.yaml `upstreams:`, run by plugins/http with its JSONata rules) and once as a
// hand-written plugin (bench/plugins/bench-pick), each paired with bare Koa. Goal: the configured one costs at
// most 10% more gateway CPU per call than the hand-written one. Both rows are billed, uncached, new numbers.
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createBenchDatabase } from './bench-db.js';
import { drive } from './load.js';
import { cpuByThread, cpuMicros, type PairedResult, paired } from './paired.js';
import { stopServer } from './processes.js';
import { inclusiveMicros, selfByWindow, summariseProfile } from './profile-summary.js';

type Start = (args: string[], env: Record<string, string>, nodeArgs?: string[]) => Promise<ChildProcess>;

/**
 * BENCH_UPSTREAM_PROFILE=<dir>: the gateway writes a CPU profile of its main thread there (node --cpu-prof), both
 * rows in one; `upstreamProfileText` sums it per pipeline branch, so the two rows' own work shows apart.
 */
const PROFILE_DIR = process.env.BENCH_UPSTREAM_PROFILE;
/** Load per row before measuring (BENCH_WARMUP_SECONDS, default 10 as for the main rows). */
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 10);
/**
 * Requests per second both rows are driven at (BENCH_UPSTREAM_RATE; 0: each as fast as its answers come, as the
 * other rows). By default 70% of the slower row's warm-up rate. CPU per call falls as the rate rises (more calls
 * share each wake-up of the event loop and the isolates' threads, each socket read, each commit), so rows driven
 * as fast as they go compare a slower row's calls at a lower rate against a faster one's at a higher one: a small
 * difference in work became a large one in CPU per call. At one rate both do the same calls under the same load.
 */
const RATE = process.env.BENCH_UPSTREAM_RATE;
const RATE_SHARE = 0.7;

const INPUT = `
    input: { type: object, required: [phone], additionalProperties: false, properties: { phone: { type: string, minLength: 11, maxLength: 11, description: { zh: 手机号, en: Number } } } }
    response:
      phone: { type: string, zh: 号码, en: Number }
      province: { type: string, zh: 省份, en: Province }
      city: { type: string, zh: 城市, en: City }
      carrier: { type: string, zh: 运营商, en: Carrier }`;

/** Both operations, the stub's port in their URLs. */
function operationsYaml(stubPort: number): string {
  return `operations:
  - code: up_config
    name: { zh: 配置上游, en: Configured upstream }
    price_per_call: 0.005
    timeout_ms: 5000${INPUT}
    upstreams:
      - id: stub
        cost_per_call: 0.001
        request:
          url: http://localhost:${stubPort}/loc
          query: { phone: '{{ input.phone }}' }
        success: status = 200 and body.code = 0
        result: '{ "phone": input.phone, "province": body.data.prov, "city": body.data.city, "carrier": body.data.isp }'
  - code: up_plugin
    name: { zh: 手写插件, en: Hand-written plugin }
    plugin: bench-pick
    price_per_call: 0.005
    timeout_ms: 5000${INPUT}
    options: { url: 'http://localhost:${stubPort}/loc' }
`;
}

export interface UpstreamRows {
  rows: Array<[string, PairedResult, string]>;
  /**
   * Gateway CPU per call, configured over hand-written (goal <= 1.10), over each row's whole measured window: all
   * the gateway's CPU from before its first slice until its last calls have been answered, over the calls the
   * gateway itself answered (its /metrics count). Undefined off Linux.
   */
  cpuRatio?: number;
  /** The same figure from the rows' one-second slices (CPU in a slice over the calls the load generator saw). */
  sliceCpuRatio?: number;
  /** Requests per second both rows were driven at; 0: as fast as each was answered. */
  rate: number;
  /** Each row's whole-window figures: gateway CPU microseconds per call, the calls, and the CPU by thread name. */
  windows?: Record<string, { cpuUs: number; calls: number; byThread: Record<string, number> }>;
  /** With BENCH_UPSTREAM_PROFILE: where the gateway's main thread went, per row's call. */
  profile?: string;
}

/** Functions whose inclusive time tells the rows apart: each branch's own, and the work the configured one adds. */
const BRANCHES = {
  up_config: [
    'runUpstreams@upstreams.ts',
    'attemptOrder@upstreams.ts',
    'upstreamCacheKey@upstreams.ts',
    'admit@upstream-health.ts',
    'succeeded@upstream-health.ts',
    'validate',
    'serialiseResult',
  ],
  up_plugin: ['runOne@run-plugin.ts', 'sandboxRequest', 'serialiseResult'],
} as const;

/** How long to wait after a row's half for the calls still in flight to be answered (and their CPU spent). */
const SETTLE_MS = 300;

/**
 * /api calls the gateway has answered for `code` (its own count, every outcome): calls still in flight when a
 * load slice ends are answered after it, and counted here with the CPU they cost.
 */
async function answeredCalls(port: number, token: string, code: string): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: `Bearer ${token}` } });
  if (!res.ok) throw new Error(`GET /metrics answered ${res.status}`);
  let n = 0;
  for (const line of (await res.text()).split('\n'))
    if (line.startsWith('tollgate_call_duration_seconds_count{') && line.includes(`operation="${code}"`))
      n += Number(line.slice(line.lastIndexOf(' ') + 1));
  return n;
}

/** Microseconds of the monotonic clock, as V8 stamps its profile samples. */
const nowUs = (): number => Number(process.hrtime.bigint() / 1000n);

/** Per call of each row, inside that row's own measured slices: the functions whose self time differs most. */
function differences(file: string, windows: Array<[string, number, number]>, calls: Record<string, number>): string[] {
  const self = selfByWindow(file, windows);
  const perCall = (code: string): Map<string, number> => {
    const m = new Map<string, number>();
    for (const [k, us] of self.get(code) ?? []) m.set(k, us / Math.max(1, calls[code]));
    return m;
  };
  const [c, p] = [perCall('up_config'), perCall('up_plugin')];
  const busy = (m: Map<string, number>): number =>
    [...m].reduce((n, [k, v]) => (k.startsWith('(idle)') ? n : n + v), 0);
  const diff = [...new Set([...c.keys(), ...p.keys()])]
    .map((k): [string, number] => [k, (c.get(k) ?? 0) - (p.get(k) ?? 0)])
    .sort((a, b) => Math.abs(b[1]) - Math.abs(a[1]))
    .filter(([k]) => !k.startsWith('(idle)'))
    .slice(0, 25);
  return [
    `main thread busy per measured call: up_config ${busy(c).toFixed(0)} us, up_plugin ${busy(p).toFixed(0)} us`,
    'self time per call, up_config minus up_plugin (largest differences):',
    ...diff.map(([k, v]) => `  ${v >= 0 ? '+' : ''}${v.toFixed(1).padStart(7)} us  ${k}`),
  ];
}

function profileText(
  dir: string,
  calls: Record<string, number>,
  windows: Array<[string, number, number]>,
  measured: Record<string, number>,
): string {
  const files = readdirSync(dir).map((f) => join(dir, f));
  const summaries = files.map((f) => ({ f, ...summariseProfile(f) })).sort((a, b) => b.busy - a.busy);
  const main = summaries[0];
  const lines = [
    main.text,
    ...differences(main.f, windows, measured),
    `main thread, microseconds per call of the row (inclusive, ${calls.up_config} / ${calls.up_plugin} calls):`,
  ];
  for (const [code, names] of Object.entries(BRANCHES)) {
    const us = inclusiveMicros(main.f, names);
    lines.push(
      `  ${code}: ${names.map((n) => `${n} ${((us.get(n) ?? 0) / Math.max(1, calls[code])).toFixed(1)}`).join(', ')}`,
    );
  }
  return lines.join('\n');
}

export async function benchUpstream(
  start: Start,
  freePort: () => Promise<number>,
  bare: { port: number; pid: number | undefined },
  seconds: number,
  connections: number,
  passwordHash: string,
): Promise<UpstreamRows> {
  const { dataDir, keys } = await createBenchDatabase(50, passwordHash);
  const [stubPort, gatewayPort] = [await freePort(), await freePort()];
  const opsFile = join(dataDir, 'upstream-operations.yaml');
  writeFileSync(opsFile, operationsYaml(stubPort));
  const stub = await start([resolve('bench/upstream-stub.ts')], { PORT: String(stubPort) });
  const metricsToken = randomBytes(24).toString('hex');
  const profileArgs = PROFILE_DIR
    ? ['--cpu-prof', '--cpu-prof-interval=250', `--cpu-prof-dir=${resolve(PROFILE_DIR)}`]
    : [];
  const gateway = await start(
    [resolve('bench/upstream-gateway.ts')],
    {
      DATA_DIR: dataDir,
      PORT: String(gatewayPort),
      OPERATIONS_FILE: opsFile,
      PLUGIN_DIRS: `${resolve('plugins')}:${resolve('bench/plugins')}`,
      RATE_LIMIT_PER_SECOND: '1000000',
      RATE_LIMIT_BURST: '1000000',
      MAX_IN_FLIGHT_PER_KEY: '1000',
      LOG_LEVEL: 'warn',
      METRICS_TOKEN: metricsToken,
    },
    profileArgs,
  );
  try {
    const g = { port: gatewayPort, pid: gateway.pid };
    const rows: Array<[string, PairedResult, string]> = [];
    const calls: Record<string, number> = { up_config: 0, up_plugin: 0 };
    // Warm-up per row (BENCH_WARMUP_SECONDS, default 10): the configured path has more code for V8 to compile
    // (JSONata, the failover steps), so a short warm-up bills that one-time compilation to its first slices.
    // Warm-up in alternating one-second slices (BENCH_WARMUP_SECONDS per row): the shared code (pipeline, undici,
    // the sandbox's glue) is optimised for the mix the measurement meets. One row's whole warm-up after the
    // other's left the first measured half compiling again (traced with --trace-opt: ~460 optimisations in the
    // first half, ~85-170 in the others).
    const warm: Record<string, number> = { up_config: 0, up_plugin: 0 };
    for (let i = 0; i < Math.max(1, Math.round(WARMUP_SECONDS)); i++)
      for (const code of ['up_config', 'up_plugin'])
        warm[code] += (await drive(gatewayPort, keys, 1, connections, 0, code)).total;
    for (const code of ['up_config', 'up_plugin']) calls[code] += warm[code];
    const rate =
      RATE !== undefined
        ? Number(RATE)
        : Math.max(
            1,
            Math.floor(
              (RATE_SHARE * Math.min(warm.up_config, warm.up_plugin)) / Math.max(1, Math.round(WARMUP_SECONDS)),
            ),
          );
    // The rows alternate in one-second slices, config, plugin, plugin, config, ...: what the machine's other work
    // does to one second (another VM's burst, a collection of the gateway's heap) meets both rows alike. Halves of
    // several seconds each (four in a run) left runs of one tree between 0.96 and 1.27.
    const rounds = 2 * Math.max(1, Math.round(seconds / 2));
    const parts: Record<string, PairedResult[]> = { up_config: [], up_plugin: [] };
    const windows: Array<[string, number, number]> = [];
    // Whole-window accounting per row (see `cpuRatio`), beside the slices' own.
    const whole: Record<string, { cpu: number; calls: number; byThread: Map<string, number> }> = {
      up_config: { cpu: 0, calls: 0, byThread: new Map() },
      up_plugin: { cpu: 0, calls: 0, byThread: new Map() },
    };
    const settle = (): Promise<void> => new Promise((r) => setTimeout(r, SETTLE_MS));
    await settle(); // the warm-up's last calls
    // In the order config, plugin, plugin, config: whatever comes with a change of row (the other path's code and
    // shapes met again) or drifts over the run meets both alike.
    for (let i = 0; i < rounds; i++)
      for (const code of i % 2 === 0 ? ['up_config', 'up_plugin'] : ['up_plugin', 'up_config']) {
        const [cpu0, calls0] = [cpuMicros(gateway.pid), await answeredCalls(gatewayPort, metricsToken, code)];
        const threads0 = cpuByThread(gateway.pid, true);
        const from = nowUs();
        parts[code].push(await paired(g, bare, keys, 1, connections, 0, code, rate));
        windows.push([code, from, nowUs()]);
        await settle();
        const [cpu1, calls1] = [cpuMicros(gateway.pid), await answeredCalls(gatewayPort, metricsToken, code)];
        if (cpu0 !== undefined && cpu1 !== undefined) whole[code].cpu += cpu1 - cpu0;
        whole[code].calls += calls1 - calls0;
        for (const [name, us] of cpuByThread(gateway.pid, true) ?? [])
          if (threads0?.has(name))
            whole[code].byThread.set(name, (whole[code].byThread.get(name) ?? 0) + us - (threads0.get(name) ?? 0));
      }
    const measured: Record<string, number> = { up_config: 0, up_plugin: 0 };
    for (const code of ['up_config', 'up_plugin']) for (const p of parts[code]) measured[code] += p.gateway.total;
    for (const code of ['up_config', 'up_plugin']) calls[code] += measured[code];
    rows.push(
      ['up config', merge(parts.up_config), 'operations.yaml upstreams: (plugins/http, JSONata) -> stub on loopback'],
      ['up plugin', merge(parts.up_plugin), 'hand-written plugin (bench/plugins/bench-pick), same fetch and pick'],
    );
    const [c, p] = [rows[0][1].gatewayCpuUs, rows[1][1].gatewayCpuUs];
    const perCall = (code: string): number => whole[code].cpu / Math.max(1, whole[code].calls);
    const known = cpuMicros(gateway.pid) !== undefined;
    for (const child of [gateway, stub]) await stop(child); // the profile is written as the gateway exits
    return {
      rows,
      rate,
      ...(known
        ? {
            cpuRatio: perCall('up_config') / perCall('up_plugin'),
            windows: Object.fromEntries(
              Object.keys(whole).map((code) => [
                code,
                {
                  cpuUs: perCall(code),
                  calls: whole[code].calls,
                  byThread: Object.fromEntries(
                    [...whole[code].byThread].map(([name, us]) => [name, us / Math.max(1, whole[code].calls)]),
                  ),
                },
              ]),
            ),
          }
        : {}),
      ...(c && p ? { sliceCpuRatio: c / p } : {}),
      ...(PROFILE_DIR ? { profile: profileText(resolve(PROFILE_DIR), calls, windows, measured) } : {}),
    };
  } finally {
    for (const child of [gateway, stub]) await stop(child);
  }
}

const stop = stopServer;

/** The slices of one row as one: sums of calls, rates averaged, CPU weighted by calls. */
function merge(parts: PairedResult[]): PairedResult {
  const sumOf = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);
  const statuses = (xs: Array<Record<string, number>>): Record<string, number> => {
    const out: Record<string, number> = {};
    for (const x of xs) for (const [k, v] of Object.entries(x)) out[k] = (out[k] ?? 0) + v;
    return out;
  };
  const load = (xs: Array<PairedResult['gateway']>) => ({
    requestsPerSecond: sumOf(xs.map((x) => x.requestsPerSecond)) / xs.length,
    p50: Math.max(...xs.map((x) => x.p50)),
    p99: Math.max(...xs.map((x) => x.p99)),
    statuses: statuses(xs.map((x) => x.statuses)),
    total: sumOf(xs.map((x) => x.total)),
  });
  const weighted = (values: Array<number | undefined>, weights: number[]): number | undefined =>
    values.some((v) => v === undefined)
      ? undefined
      : sumOf(values.map((v, i) => (v as number) * weights[i])) / Math.max(1, sumOf(weights));
  return {
    gateway: load(parts.map((p) => p.gateway)),
    bare: load(parts.map((p) => p.bare)),
    gatewayMachine: {
      busy: sumOf(parts.map((p) => p.gatewayMachine.busy)),
      total: sumOf(parts.map((p) => p.gatewayMachine.total)),
    },
    gatewayCpuUs: weighted(
      parts.map((p) => p.gatewayCpuUs),
      parts.map((p) => p.gateway.total),
    ),
    bareCpuUs: weighted(
      parts.map((p) => p.bareCpuUs),
      parts.map((p) => p.bare.total),
    ),
    gatewayThreadBusy: weighted(
      parts.map((p) => p.gatewayThreadBusy),
      parts.map(() => 1),
    ),
  };
}
