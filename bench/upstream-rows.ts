// The upstream rows of npm run bench: the same fetch-and-pick against a stub upstream on this machine, once as a
// configured upstream (operations.yaml `upstreams:`, run by plugins/http with its JSONata rules) and once as a
// hand-written plugin (bench/plugins/bench-pick), each paired with bare Koa. Goal: the configured one costs at
// most 10% more gateway CPU per call than the hand-written one. Both rows are billed, uncached, new numbers.
import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createBenchDatabase } from './bench-db.js';
import { drive } from './load.js';
import { type PairedResult, paired } from './paired.js';

type Start = (args: string[], env: Record<string, string>) => Promise<ChildProcess>;

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
  /** Gateway CPU per call, configured over hand-written (goal <= 1.10); undefined off Linux. */
  cpuRatio?: number;
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
  const gateway = await start([resolve('bench/upstream-gateway.ts')], {
    DATA_DIR: dataDir,
    PORT: String(gatewayPort),
    OPERATIONS_FILE: opsFile,
    PLUGIN_DIRS: `${resolve('plugins')}:${resolve('bench/plugins')}`,
    RATE_LIMIT_PER_SECOND: '1000000',
    RATE_LIMIT_BURST: '1000000',
    MAX_IN_FLIGHT_PER_KEY: '1000',
    LOG_LEVEL: 'warn',
  });
  try {
    const g = { port: gatewayPort, pid: gateway.pid };
    const rows: Array<[string, PairedResult, string]> = [];
    for (const code of ['up_config', 'up_plugin']) await drive(gatewayPort, keys, 2, connections, 0, code); // warm-up
    // Alternate the two rows' halves so background load meets both alike.
    const half = Math.max(1, Math.floor(seconds / 2));
    const parts: Record<string, PairedResult[]> = { up_config: [], up_plugin: [] };
    for (let i = 0; i < 2; i++)
      for (const code of ['up_config', 'up_plugin'])
        parts[code].push(await paired(g, bare, keys, half, connections, 0, code));
    rows.push(
      ['up config', merge(parts.up_config), 'operations.yaml upstreams: (plugins/http, JSONata) -> stub on loopback'],
      ['up plugin', merge(parts.up_plugin), 'hand-written plugin (bench/plugins/bench-pick), same fetch and pick'],
    );
    const [c, p] = [rows[0][1].gatewayCpuUs, rows[1][1].gatewayCpuUs];
    return { rows, ...(c && p ? { cpuRatio: c / p } : {}) };
  } finally {
    for (const child of [gateway, stub]) {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
  }
}

/** Two halves of one row as one: sums of calls, CPU weighted by calls. */
function merge([a, b]: PairedResult[]): PairedResult {
  const sum = (x: Record<string, number>, y: Record<string, number>): Record<string, number> => {
    const out = { ...x };
    for (const [k, v] of Object.entries(y)) out[k] = (out[k] ?? 0) + v;
    return out;
  };
  const load = (x: PairedResult['gateway'], y: PairedResult['gateway']) => ({
    requestsPerSecond: (x.requestsPerSecond + y.requestsPerSecond) / 2,
    p50: Math.max(x.p50, y.p50),
    p99: Math.max(x.p99, y.p99),
    statuses: sum(x.statuses, y.statuses),
    total: x.total + y.total,
  });
  const weighted = (u: number | undefined, v: number | undefined, nu: number, nv: number): number | undefined =>
    u === undefined || v === undefined ? undefined : (u * nu + v * nv) / Math.max(1, nu + nv);
  return {
    gateway: load(a.gateway, b.gateway),
    bare: load(a.bare, b.bare),
    gatewayMachine: {
      busy: a.gatewayMachine.busy + b.gatewayMachine.busy,
      total: a.gatewayMachine.total + b.gatewayMachine.total,
    },
    gatewayCpuUs: weighted(a.gatewayCpuUs, b.gatewayCpuUs, a.gateway.total, b.gateway.total),
    bareCpuUs: weighted(a.bareCpuUs, b.bareCpuUs, a.bare.total, b.bare.total),
    gatewayThreadBusy: weighted(a.gatewayThreadBusy, b.gatewayThreadBusy, 1, 1),
  };
}
