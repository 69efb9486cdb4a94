// `npm run cluster` (core/cluster.ts): refuses to start without PostgreSQL and Redis, serves with N workers on
// one shared port, restarts a worker that dies, and says so when its workers cannot listen.

import { execFileSync, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import t from 'tap';
import { freshPgRedis, unreachable } from './backend.js';
import { clusterPort, gatewayEnv, NODE_ARGS, runCli, scaleOperationsFile, startCluster } from './support.js';

// Workers only: the primary's other children (esbuild's service process, which the TypeScript loader and the
// plugin bundler start) are not workers.
const workersOf = (pid: number): number[] => {
  try {
    return execFileSync('pgrep', ['-P', String(pid), '-f', 'core/cluster.ts'], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
};

// A cluster's start is two worker start-ups one after the other (the first migrates alone), each a few seconds on a
// quiet machine and over 15 s on one running other suites beside it: the ceiling is for a cluster that never gets
// there, not a timing.
const waitFor = async (what: string, check: () => Promise<boolean>, ms = 90_000): Promise<void> => {
  const end = Date.now() + ms;
  while (!(await check().catch(() => false))) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
};

t.test('refuses to start without DATABASE_URL and REDIS_URL, saying why', async (t) => {
  const env = { ...gatewayEnv('x', 'x', 'x'), DATABASE_URL: '', REDIS_URL: '' };
  const proc = spawn(process.execPath, [...NODE_ARGS, 'core/cluster.ts'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  proc.stderr.on('data', (b: Buffer) => (err += b.toString()));
  const code = await new Promise((r) => proc.once('exit', r));
  t.equal(code, 2);
  t.match(err, /needs DATABASE_URL=postgres:\/\/\.\.\. and REDIS_URL=redis:\/\/\.\.\./);
});

const why = await unreachable();
if (why) {
  console.log(`# scale-out cluster: serving part skipped, ${why}`);
  t.test('cluster serving', { skip: `scale-out cluster: skipped, ${why}` }, () => undefined);
} else {
  t.test('two workers share one port; a killed worker is restarted', async (t) => {
    const backend = await freshPgRedis();
    // PORT=0: the workers share the port the first one is given (no other test can take it meanwhile).
    const env = gatewayEnv(backend.schema, backend.prefix, scaleOperationsFile(), {
      PORT: '0',
      CLUSTER_SIZE: '2',
      LOG_LEVEL: 'info',
    });
    const cluster = startCluster(env);
    const { primary } = cluster;
    const out = (): string => cluster.output();
    t.teardown(async () => {
      await cluster.stop();
      await backend.close();
    });
    await waitFor('the cluster to start', async () => clusterPort(out()) !== undefined);
    const port = clusterPort(out()) as number;
    const health = async (): Promise<boolean> => (await fetch(`http://127.0.0.1:${port}/api/health`)).status === 200;
    t.ok(await health(), 'serves on the shared port');
    const before = workersOf(primary.pid!);
    t.equal(before.length, 2, 'two workers');
    process.kill(before[0]!, 'SIGKILL');
    await waitFor('the worker to be replaced', async () => {
      const now = workersOf(primary.pid!);
      return (
        now.length === 2 &&
        !now.includes(before[0]!) &&
        /restarting/.test(out()) &&
        /listening on/.test(out().split('restarting').pop()!)
      );
    });
    t.pass('the dead worker was replaced');
    for (let i = 0; i < 6; i++) t.ok(await health(), `health ${i} through the shared port`);
    const rec = await runCli(env, ['reconcile']);
    t.equal(rec.code, 0, 'reconcile exits 0');
  });

  t.test('a port already in use: the workers say why, and the primary does not claim to serve', async (t) => {
    const backend = await freshPgRedis();
    const holder = createServer();
    await new Promise<void>((r) => holder.listen(0, r));
    const port = (holder.address() as { port: number }).port;
    const env = gatewayEnv(backend.schema, backend.prefix, scaleOperationsFile(), {
      PORT: String(port),
      CLUSTER_SIZE: '2',
      LOG_LEVEL: 'info',
    });
    const cluster = startCluster(env);
    const out = (): string => cluster.output();
    t.teardown(async () => {
      await cluster.stop();
      holder.close();
      await backend.close();
    });
    await waitFor('the primary to count its workers', async () => /workers listening/.test(out()));
    t.match(out(), /0 of 2 workers listening/, 'the primary counts the workers that listen');
    t.match(out(), /EADDRINUSE/, "a worker's own error names the cause");
    t.notMatch(out(), /cluster of 2 workers sharing port/, 'never the line that says it serves');
  });
}
