// Metrics under `npm run cluster`: calls land on both workers (checked by which worker process owns each
// connection), and the primary's /metrics (METRICS_LISTEN) is their sum; so is the main port's /metrics
// (METRICS_TOKEN), which a worker answers by asking the primary. Also: the primary logs in the gateway's shape.

import { execFileSync } from 'node:child_process';
import { Agent, request } from 'node:http';
import { createServer } from 'node:net';
import t, { type Test } from 'tap';
import { parseExposition } from '../observability/exposition.js';
import { freshPgRedis, unreachable } from './backend.js';
import { clusterPort, gatewayEnv, openTestStore, scaleOperationsFile, seedUser, startCluster } from './support.js';

const freePort = (): Promise<number> =>
  new Promise((r) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => r(port));
    });
  });

const waitFor = async (what: string, check: () => boolean, ms = 60_000): Promise<void> => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
};

interface Reply {
  status: number;
  text: string;
  /** The client side's port of the connection that carried the call. */
  localPort: number;
}

function get(port: number, path: string, headers: Record<string, string>, agent?: Agent): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers, agent: agent ?? false }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text, localPort: req.socket!.localPort! }));
    });
    req.on('error', reject).end();
  });
}

/** Which process holds the server side of each established connection to `port`: client port -> pid. */
function connectionOwners(port: number): Map<number, number> {
  const out = execFileSync('ss', ['-Htnp', 'state', 'established', `( sport = :${port} )`], { encoding: 'utf8' });
  const owners = new Map<number, number>();
  for (const line of out.split('\n')) {
    const m = /:(\d+)\s+users:\(\("[^"]*",pid=(\d+)/.exec(line);
    if (m) owners.set(Number(m[1]), Number(m[2]));
  }
  return owners;
}

// Workers only: the primary's other children (esbuild's service process, which the TypeScript loader and the
// plugin bundler start) are not workers.
const workersOf = (pid: number): number[] =>
  execFileSync('pgrep', ['-P', String(pid), '-f', 'core/cluster.ts'], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .filter(Boolean)
    .map(Number);

const why = await unreachable();
if (why) {
  console.log(`# cluster metrics: skipped, ${why}`);
  t.test('cluster metrics', { skip: `cluster metrics: skipped, ${why}` }, () => undefined);
} else {
  t.test('the primary serves the sum of both workers', async (t) => {
    const backend = await freshPgRedis();
    const store = await openTestStore(backend.schema);
    const rich = await seedUser(store, '100');
    const poor = await seedUser(store, '0');
    await store.close();
    const metricsPort = await freePort();
    // PORT=0: the workers share the port the first one is given, so no other test's server can take it between a
    // free port being picked and the workers listening (seen once: every call answered by another process).
    const env = gatewayEnv(backend.schema, backend.prefix, scaleOperationsFile(), {
      PORT: '0',
      CLUSTER_SIZE: '2',
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'json',
      METRICS_LISTEN: `127.0.0.1:${metricsPort}`,
      METRICS_TOKEN: 'cluster-metrics-token',
    });
    const cluster = startCluster(env);
    const { primary } = cluster;
    const agent = new Agent({ keepAlive: true, maxSockets: 4 });
    t.teardown(async () => {
      agent.destroy();
      await cluster.stop();
      await backend.close();
    });
    await waitFor('the cluster to start', () => clusterPort(cluster.output()) !== undefined);
    const port = clusterPort(cluster.output()) as number;
    const workers = workersOf(primary.pid!);
    t.equal(workers.length, 2, 'two workers');

    // Four keep-alive connections opened at once: node:cluster hands new connections to the workers in turn.
    const CALLS = 24;
    const replies: Reply[] = [];
    const perWorker = new Map<number | undefined, number>();
    for (let i = 0; i < CALLS; i += 4) {
      const batch = await Promise.all(
        [0, 1, 2, 3].map((j) => get(port, `/api/echo?msg=m${i + j}`, { 'X-API-Key': rich.key }, agent)),
      );
      const owners = connectionOwners(port); // right away, while the batch's connections are surely open
      for (const r of batch) perWorker.set(owners.get(r.localPort), (perWorker.get(owners.get(r.localPort)) ?? 0) + 1);
      replies.push(...batch);
    }
    const denied = await get(port, '/api/echo?msg=poor', { 'X-API-Key': poor.key }, agent);
    t.same(
      replies.map((r) => r.status),
      Array(CALLS).fill(200),
      'every call succeeded',
    );
    t.equal(denied.status, 402);
    t.same(
      [...perWorker.keys()].sort(),
      [...workers].sort(),
      `the calls were served by both workers (${JSON.stringify([...perWorker])})`,
    );
    t.ok(
      [...perWorker.values()].every((n) => n > 0 && n < CALLS),
      `split ${[...perWorker.values()].join(' + ')}`,
    );

    const check = (t: Test, text: string): void => {
      const m = parseExposition(text);
      t.equal(
        m.samples.get(
          'tollgate_call_duration_seconds_count{operation="echo",outcome="success",code="OK",cache="miss"}',
        ),
        CALLS,
      );
      t.equal(
        m.samples.get(
          'tollgate_call_duration_seconds_count{operation="echo",outcome="denied",code="INSUFFICIENT_BALANCE",cache="miss"}',
        ),
        1,
      );
      t.equal(
        m.samples.get('tollgate_charged_micro_total{operation="echo"}'),
        CALLS * 10_000,
        `${CALLS} x 0.01 TOKEN in micro-TOKEN`,
      );
      t.equal(m.samples.get('tollgate_charged_calls_total{operation="echo"}'), CALLS);
      t.equal(m.type.get('tollgate_call_duration_seconds'), 'histogram');
      t.ok(m.samples.has('nodejs_eventloop_lag_seconds'), 'runtime metrics of the workers');
      t.same(
        [...m.type.keys()].filter((n) => !m.help.get(n)),
        [],
        'HELP on everything',
      );
    };
    const scrape = await get(metricsPort, '/metrics', {});
    t.equal(scrape.status, 200);
    t.test('METRICS_LISTEN on the primary', async (t) => check(t, scrape.text));
    for (let i = 0; i < 2; i++) {
      const viaWorker = await get(port, '/metrics', { authorization: 'Bearer cluster-metrics-token' });
      t.equal(viaWorker.status, 200, `main port scrape ${i}`);
      t.test(`the main port with METRICS_TOKEN, scrape ${i} (a worker asks the primary)`, async (t) =>
        check(t, viaWorker.text),
      );
    }

    const primaryLines = cluster
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.role === 'primary');
    const started = primaryLines.find((l) => /^cluster of 2 workers/.test(String(l.message)));
    t.match(started, {
      level: 'info',
      pid: primary.pid,
      role: 'primary',
      message: `cluster of 2 workers sharing port ${port}`,
    });
    t.same(
      primaryLines.filter((l) => 'msg' in l),
      [],
      'no msg key: the same shape as the workers',
    );
  });
}
