// `npm run cluster`: N gateway processes on one machine, sharing ONE port through node:cluster (the primary
// accepts connections and hands them to workers round-robin). Workers share PostgreSQL (money) and Redis
// (limits, counters, cache), so both are required. A worker that dies is restarted; the primary stays tiny.
//   CLUSTER_SIZE=N or --workers N (default 2); PORT as for `serve`.
import cluster from 'node:cluster';
import type { Server } from 'node:http';
import { clusterPrimaryMetrics } from './cluster-metrics.js';
import { readEdgeSettings } from './config/edge-env.js';
import { readLogSettings } from './config/log-env.js';
import { listen } from './http/http-server.js';
import { createMetricsServer } from './http/metrics-endpoint.js';
import { createProcessLogger, type Logger } from './kernel/logger.js';

const USAGE = 'usage: npm run cluster -- [--workers N]   (env: CLUSTER_SIZE, PORT, DATABASE_URL, REDIS_URL)';

function workerCount(argv: string[], env: NodeJS.ProcessEnv): number {
  const i = argv.indexOf('--workers');
  const raw = i >= 0 ? argv[i + 1] : env.CLUSTER_SIZE || '2';
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 256)
    throw new Error(`--workers / CLUSTER_SIZE must be an integer from 1 to 256, got "${raw}"`);
  return n;
}

/** Why the cluster cannot start, or null. Several processes on one SQLite file or per-process limits would not be one truth. */
export function clusterRefusal(env: NodeJS.ProcessEnv): string | null {
  const missing = [
    !/^postgres(ql)?:\/\//.test(env.DATABASE_URL ?? '') && 'DATABASE_URL=postgres://...',
    !/^rediss?:\/\//.test(env.REDIS_URL ?? '') && 'REDIS_URL=redis://...',
  ].filter(Boolean);
  if (missing.length === 0) return null;
  return (
    `npm run cluster needs ${missing.join(' and ')}.\n` +
    'Several processes must share one database (the ledger) and one Redis (rate limits, in-flight slots, plan\n' +
    'counters, cache); SQLite and in-memory limits belong to a single process. For one process use `npm start`.'
  );
}

/** Metrics served by the primary on METRICS_LISTEN: the sum of the workers'. */
async function serveClusterMetrics(logger: Logger): Promise<Server | null> {
  const address = readEdgeSettings(process.env).metricsListen;
  const source = clusterPrimaryMetrics(); // also answers workers asked for /metrics on the main port
  if (!address) return null;
  const server = createMetricsServer({ metrics: source });
  await listen(server, address.port, address.host);
  logger.info(
    `metrics (sum of the workers) on http://${address.host.includes(':') ? `[${address.host}]` : address.host}:${address.port}/metrics`,
  );
  return server;
}

async function primary(): Promise<void> {
  const refusal = clusterRefusal(process.env);
  if (refusal) {
    process.stderr.write(`${refusal}\n${USAGE}\n`);
    process.exit(2);
  }
  const { level, format } = readLogSettings(process.env);
  const logger = createProcessLogger(level, format).child({ role: 'primary' });
  const log = (message: string): void => logger.info(message);
  const size = workerCount(process.argv.slice(2), process.env);
  let stopping = false;
  const recentDeaths: number[] = [];

  /** A new worker; its port once it listens, or undefined when it exited first (port taken, bad config...). */
  const fork = (): Promise<number | undefined> =>
    new Promise((resolve) => {
      const w = cluster.fork();
      w.once('listening', (address) => resolve(address.port));
      w.once('exit', () => resolve(undefined));
    });

  cluster.on('exit', (w, code, signal) => {
    if (stopping) return;
    // Back off when workers die right after start (bad config, database down), so the machine is not hammered.
    const now = Date.now();
    recentDeaths.push(now);
    while (recentDeaths.length && recentDeaths[0]! < now - 60_000) recentDeaths.shift();
    const delay = recentDeaths.length > size * 3 ? 5000 : 200;
    logger.warn(`worker ${w.process.pid} died (${signal ?? `exit ${code}`}); restarting in ${delay} ms`, {
      worker_pid: w.process.pid,
      code,
      signal,
    });
    setTimeout(() => void fork(), delay);
  });

  const metricsServer = await serveClusterMetrics(logger);
  // The first worker alone: it migrates the database and creates the first-start accounts, which must not race.
  const ports = [await fork(), ...(await Promise.all(Array.from({ length: size - 1 }, fork)))];
  const port = ports.find((p) => p !== undefined);
  const listening = ports.filter((p) => p !== undefined).length;
  // Said only of workers that listen (with PORT=0, on the port the first one was given): a worker that exited
  // before listening is being restarted, and its own error says why.
  if (listening === size) log(`cluster of ${size} workers sharing port ${port}`);
  else
    logger.warn(`${listening} of ${size} workers listening${port === undefined ? '' : ` on port ${port}`}`, {
      fix: 'the workers that exited said why above (a port in use, the database unreachable); they are restarted',
    });

  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    log(`stopping ${Object.keys(cluster.workers ?? {}).length} workers (${signal})`);
    metricsServer?.close();
    for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGTERM');
    const check = setInterval(() => {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
    }, 100);
    setTimeout(() => (clearInterval(check), process.exit(1)), 20_000).unref();
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

if (cluster.isPrimary) {
  primary().catch((err: Error) => {
    process.stderr.write(`${err.message}\n${USAGE}\n`);
    process.exit(2);
  });
} else {
  // A worker is an ordinary `serve` process; node:cluster shares its listening socket with the others.
  // Imported here only, so the primary never loads the gateway (sandbox, database drivers).
  import('./main.js')
    .then(({ runCli }) => runCli(['serve']))
    .then(
      (code) => process.exit(code),
      (err: Error) => {
        process.stderr.write(`${err.stack ?? err.message}\n`);
        process.exit(1);
      },
    );
}
