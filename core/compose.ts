// Builds the Services graph: env -> store -> sandbox -> registry -> services. main.ts and the test helper
// both use it, so tests run the same wiring as production with only the outer parts swapped.

import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createKeyCache } from './accounts/key-cache.js';
import { createMailer } from './accounts/mail/mailer.js';
import { giveBackExpiredHolds } from './billing/holds.js';
import { createMoney } from './billing/money.js';
import { createPayments } from './billing/payments/provider-registry.js';
import { createPlans } from './billing/plan-pricing.js';
import type { Settings } from './config/env.js';
import { createLogger, type Logger } from './kernel/logger.js';
import { createMetrics, type Metrics } from './kernel/metrics.js';
import { SingleFlight } from './kernel/single-flight.js';
import { createBalanceAlerts } from './notify/alerts/balance-alerts.js';
import { emitOrderPaid } from './notify/order-paid.js';
import { createWebhooks } from './notify/webhooks/webhooks.js';
import { releasePendingClaims } from './pipeline/idempotency.js';
import { createRegistryHolder } from './registry/hot-reload.js';
import type { Resolver } from './sandbox/address-policy.js';
import { systemResolver } from './sandbox/address-policy.js';
import { pinnedFetch } from './sandbox/pinned-fetch.js';
import { createSandbox } from './sandbox/sandbox.js';
import type { Services } from './services.js';
import { createAddressBudget } from './state/address-budget.js';
import { createLiveSuccess } from './state/live-success.js';
import { createMemoryState } from './state/memory-state.js';
import { createRedisState } from './state/redis-state.js';
import type { SharedState } from './state/shared-state.js';
import { createCallLogWriter } from './store/call-log-writer.js';
import { openStore, type Store } from './store/database.js';
import { createRefusedLog } from './store/refused-log.js';

export interface ComposeOptions {
  logger?: Logger;
  /** Folders holding plugin folders; default ./plugins. */
  pluginDirs?: string[];
  resolver?: Resolver;
  /** SQLite file under dataDir, or ':memory:'. */
  sqliteFile?: string;
  watchOperations?: boolean;
  state?: SharedState;
  /** Release every hold at start: right for a single process after a crash, wrong when others share the DB. */
  releaseAllHoldsOnStart?: boolean;
  /** A cluster worker's metrics (core/cluster-metrics.ts); default: this process's own. */
  metrics?: Metrics;
}

export const VERSION = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

export async function composeServices(settings: Settings, opts: ComposeOptions = {}): Promise<Services> {
  const logger = opts.logger ?? createLogger(settings.logLevel);
  const store = openStore({
    databaseUrl: settings.databaseUrl,
    dataDir: settings.dataDir,
    sqliteFile: opts.sqliteFile,
    schema: settings.databaseSchema,
    connectTimeoutMs: settings.dbConnectTimeoutMs,
    statementTimeoutMs: settings.dbStatementTimeoutMs,
    checkpointLogger: logger,
  });
  // A failed start (bad operations file, missing plugin) must close what it opened: a PostgreSQL pool or a Redis
  // connection left open would keep the process alive.
  const opened: Array<() => Promise<void>> = [() => store.close()];
  try {
    return await build(settings, opts, logger, store, opened);
  } catch (err) {
    for (const close of opened.reverse()) await close().catch(() => undefined);
    throw err;
  }
}

async function build(
  settings: Settings,
  opts: ComposeOptions,
  logger: Logger,
  store: Store,
  opened: Array<() => Promise<void>>,
): Promise<Services> {
  await store.migrate();
  const released = await giveBackExpiredHolds(store.db, opts.releaseAllHoldsOnStart ? Infinity : Date.now());
  if (released > 0) logger.warn('released holds left by a stopped process', { holds: released });
  // Idempotency claims of calls that died with the last run: retries may run again at once (their leases would
  // end anyway; on a shared database the leases alone decide).
  const claims = opts.releaseAllHoldsOnStart ? await releasePendingClaims(store.db) : 0;
  if (claims > 0) logger.warn('released Idempotency-Key claims left by a stopped process', { claims });

  // With REDIS_URL every process shares limits, counters and cache; without it they are per process.
  const state =
    opts.state ??
    (settings.redisUrl
      ? await createRedisState({
          url: settings.redisUrl,
          prefix: settings.redisPrefix,
          logger,
          slotLeaseMs: settings.slotLeaseMs,
          commandTimeoutMs: settings.redisCommandTimeoutMs,
        })
      : createMemoryState());
  if (!opts.state) opened.push(() => state.close());
  const pluginDirs = opts.pluginDirs ?? settings.pluginDirs ?? [resolve('plugins')];
  const sandbox = await createSandbox({
    pluginDirs,
    logger,
    poolSize: settings.sandboxPoolSize,
    resolver: opts.resolver,
    httpsProxy: settings.httpsProxy ?? undefined,
  });
  opened.push(() => sandbox.close());
  const registry = await createRegistryHolder({
    file: settings.operationsFile,
    logger,
    refreshPlugins: () => sandbox.refresh(),
    pluginExists: (name) => sandbox.has(name),
    watch: opts.watchOperations ?? true,
    pluginDirs,
  });
  const keys = createKeyCache(store.db);
  state.onRevocation((userId) => keys.invalidateUser(userId));
  // Webhook targets pass the plugins' address policy, checked again at connect time by the pinned fetch.
  const webhooks = createWebhooks({
    db: store.db,
    logger,
    fetch: pinnedFetch(),
    resolver: opts.resolver ?? systemResolver,
  });
  const alerts = createBalanceAlerts({ db: store.db, logger, webhooks, sendMail: (m) => services.mailer.send(m) });
  await alerts.refresh();
  const services: Services = {
    settings,
    logger,
    store,
    money: createMoney(store),
    state,
    sandbox,
    registry,
    keys,
    callLog: createCallLogWriter(store.db, logger, { thread: store.writerThread }),
    refused: {
      log: createRefusedLog(store.db, logger),
      apiBudget: createAddressBudget({ ratePerSecond: settings.refusedRatePerSecond, burst: settings.refusedBurst }),
      notifyBudget: createAddressBudget({ ratePerSecond: settings.refusedRatePerSecond, burst: settings.refusedBurst }),
    },
    plans: createPlans(store.db, state, () => registry.current),
    metrics: opts.metrics ?? createMetrics(),
    flights: new SingleFlight(),
    payments: createPayments(settings.payments),
    webhooks,
    alerts,
    mailer: createMailer(store.db, settings.mail, logger),
    liveSuccess: createLiveSuccess(state),
    version: VERSION,
    startedAt: Date.now(),
  };
  // Credited orders become order.paid webhooks; read through `services` so a swapped webhook service is used.
  services.payments.onOrderCredited.push((e) => emitOrderPaid(store.db, services.webhooks, e));
  return services;
}

/**
 * Closes everything, in this order, each step even when one before it failed: a step that threw used to leave the
 * rest open (a database pool, a Redis connection, isolates), and those kept the process alive. A failed step is
 * logged; the first failure is thrown once every step ran.
 */
export async function closeServices(s: Services): Promise<void> {
  const steps: Array<[string, () => unknown]> = [
    ['registry', () => s.registry.close()],
    ['mailer', () => s.mailer.close()],
    ['call log', () => s.callLog.close()],
    ['refused-request counts', () => s.refused.log.close()],
    ['sandbox', () => s.sandbox.close()],
    ['shared state', () => s.state.close()],
    ['database', () => s.store.close()],
  ];
  let first: unknown;
  for (const [step, close] of steps) {
    try {
      await close();
    } catch (err) {
      s.logger.error('closing failed', { step, reason: (err as Error).stack ?? String(err) });
      first ??= err;
    }
  }
  if (first !== undefined) throw first;
}
