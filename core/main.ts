// Composition root and CLI: env -> store -> registry -> services -> app -> listen.
//   the commands and their flags are listed in core/cli/specs.ts (`tollgate --help`).

import { createApp } from './app.js';
import { startHoldSweeper } from './billing/holds.js';
import { sweepStaleRefunds } from './billing/payments/refund-sweep.js';
import { startPaymentSweeper } from './billing/payments/sweeper.js';
import { commandHelp, type ParsedArgs, parseCommandArgs, UsageError } from './cli/args.js';
import { backupCommand, restoreCommand } from './cli/backup.js';
import { canaryRun } from './cli/canary-run.js';
import { credit, keyCreate, keyRevoke, type Print, reconcileCommand, userAdd } from './cli/commands.js';
import { configCheck } from './cli/config-check.js';
import { doctor } from './cli/doctor.js';
import { bootstrapFirstStart } from './cli/first-start.js';
import { keyRotate } from './cli/key-rotate.js';
import { paymentsSync } from './cli/payments-sync.js';
import { phoneDataCheck } from './cli/phone-data.js';
import { findCommand, usage } from './cli/specs.js';
import { userPasswd } from './cli/user-passwd.js';
import { clusterWorkerMetrics } from './cluster-metrics.js';
import { closeServices, composeServices } from './compose.js';
import { publicUrlFor } from './config/account-env.js';
import { readSettings } from './config/env.js';
import { settleDeps } from './console/api/payment-notify-route.js';
import { createCanaryRunner } from './health/canary-runner.js';
import { createGatewayServer, listen } from './http/http-server.js';
import { createMetricsServer } from './http/metrics-endpoint.js';
import { createProcessLogger } from './kernel/logger.js';
import { startExpiryNotices } from './notify/expiry-notices.js';
import { startCallLogRetention } from './store/call-log-retention.js';
import { openStore } from './store/database.js';

const print: Print = (line) => void process.stdout.write(`${line}\n`);

async function serve(args: ParsedArgs): Promise<number> {
  const settings = readSettings();
  if (typeof args.flags.port === 'string') settings.port = Number(args.flags.port);
  const logger = createProcessLogger(settings.logLevel, settings.logFormat);
  // One process on an embedded SQLite file owns every hold: any left over are from a crash.
  const workerMetrics = clusterWorkerMetrics(); // under `npm run cluster`, the primary sums these
  const services = await composeServices(settings, {
    logger,
    releaseAllHoldsOnStart: !settings.databaseUrl,
    metrics: workerMetrics,
  });
  const first = await bootstrapFirstStart(services.store.db);
  const app = createApp(services);
  const { server } = createGatewayServer(app.callback(), settings.edge, settings.trustProxy, logger);
  const port = await listen(server, settings.port);
  // PORT=0 and --port decide the port only now: mailed links and the front page must name the bound one.
  settings.accounts.publicUrl = publicUrlFor(process.env, port);
  const metricsServer = settings.edge.metricsListen && !workerMetrics ? createMetricsServer(services) : null;
  if (metricsServer && settings.edge.metricsListen) {
    const { host, port: metricsPort } = settings.edge.metricsListen;
    await listen(metricsServer, metricsPort, host);
    print(`Metrics on http://${host.includes(':') ? `[${host}]` : host}:${metricsPort}/metrics`);
  }
  const base = `http://localhost:${port}`;
  print(
    `Tollgate ${services.version} listening on ${base} (${services.store.dialect}, ${services.registry.current.list().length} operations)`,
  );
  if (first) {
    print('');
    print(`First start: created admin ${first.adminEmail} / ${first.adminPassword}`);
    print(`             and demo user ${first.demoEmail} / ${first.demoPassword} with 10 TOKEN.`);
    print(`Demo API key (shown once): ${first.demoKey}`);
    print('Try it:');
    print(`  curl "${base}/api/phone?phone=13800138000" -H "X-API-Key: ${first.demoKey}"`);
    print(`Console: ${base}/console/`);
    print('');
  }
  const stopSweeper = startHoldSweeper(services.store.db, settings.holdGraceMs, logger);
  const stopRetention = startCallLogRetention(
    services.store.db,
    settings.callLogRetentionDays,
    logger,
    settings.paymentLogRetentionDays,
  );
  // Like holds: one process on SQLite owns every refund, so a pending one at start was cut off by a crash.
  if (!settings.databaseUrl) await sweepStaleRefunds(settleDeps(services), Date.now(), 0);
  const stopPayments = startPaymentSweeper(settleDeps(services), settings.payments.sweepSeconds);
  const stopWebhooks = services.webhooks.start();
  const stopNotices = startExpiryNotices(services.store.db, services.webhooks, logger);
  // Canaries: every process competes for the lease, one runs them (core/health/canary-runner.ts).
  const stopCanaries = settings.canaries.enabled
    ? createCanaryRunner(services, { retentionDays: settings.canaries.retentionDays }).start()
    : async () => undefined;
  const stop = (signal: string): void => {
    logger.info('shutting down', { signal });
    stopSweeper();
    stopRetention();
    stopPayments();
    stopWebhooks();
    stopNotices();
    metricsServer?.close();
    server.close(() => {
      // A step that failed to close is logged by closeServices; the exit code says so.
      void stopCanaries()
        .then(() => closeServices(services))
        .then(
          () => process.exit(0),
          () => process.exit(1),
        );
    });
    setTimeout(() => process.exit(1), 15_000).unref();
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  return new Promise<number>(() => undefined);
}

async function withDatabase(run: (db: ReturnType<typeof openStore>['db']) => Promise<number>): Promise<number> {
  const settings = readSettings();
  const store = openStore({
    databaseUrl: settings.databaseUrl,
    dataDir: settings.dataDir,
    schema: settings.databaseSchema,
  });
  try {
    await store.migrate();
    return await run(store.db);
  } finally {
    await store.close();
  }
}

export async function runCli(argv: string[]): Promise<number> {
  if (argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') return print(usage()), 0;
  const { spec, rest } = findCommand(argv);
  const args = parseCommandArgs(spec, rest);
  if (args.flags.help) return print(commandHelp(spec)), 0;
  switch (spec.words.join(' ')) {
    case 'serve':
      return serve(args);
    case 'migrate':
      return withDatabase(async () => (print('migrations applied'), 0));
    case 'user add':
      return withDatabase((db) => userAdd(db, args, print));
    case 'user passwd':
      return withDatabase((db) => userPasswd(db, args, print));
    case 'credit':
      return withDatabase((db) => credit(db, args, print));
    case 'key create':
      return withDatabase((db) => keyCreate(db, args, print));
    case 'key revoke':
      return withDatabase((db) => keyRevoke(db, args, print));
    case 'key rotate':
      return withDatabase((db) => keyRotate(db, args, print));
    case 'payments sync': {
      const services = await composeServices(readSettings(), { watchOperations: false });
      try {
        return await paymentsSync(services, args, print);
      } finally {
        await closeServices(services);
      }
    }
    case 'canary run': {
      const services = await composeServices(readSettings(), { watchOperations: false });
      try {
        return await canaryRun(services, args, print);
      } finally {
        await closeServices(services);
      }
    }
    case 'reconcile':
      return withDatabase((db) => reconcileCommand(db, print));
    case 'phone-data check':
      return phoneDataCheck(args, print);
    case 'config check':
      return configCheck(args, print);
    case 'backup':
      return backupCommand(readSettings(), args, print);
    case 'restore':
      return restoreCommand(readSettings(), args, print);
    case 'doctor':
      return doctor(print);
    default:
      throw new UsageError(`unknown command: ${args.words.join(' ')}`);
  }
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/').split('/').pop()!)) {
  runCli(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: Error) => {
      process.stderr.write(
        err instanceof UsageError ? `${err.message}\n${usage()}\n` : `${err.stack ?? err.message}\n`,
      );
      process.exit(err instanceof UsageError ? 2 : 1);
    },
  );
}
