// Everything a request needs, built once in main.ts (or by the test helper) and passed in: no singletons.

import type { KeyCache } from './accounts/key-cache.js';
import type { Mailer } from './accounts/mail/mailer.js';
import type { Money } from './billing/money.js';
import type { Payments } from './billing/payments/provider-registry.js';
import type { PlanPricing } from './billing/plan-pricing.js';
import type { Settings } from './config/env.js';
import type { Logger } from './kernel/logger.js';
import type { Metrics } from './kernel/metrics.js';
import type { SingleFlight } from './kernel/single-flight.js';
import type { BalanceAlerts } from './notify/alerts/balance-alerts.js';
import type { Webhooks } from './notify/webhooks/webhooks.js';
import type { RegistryHolder } from './registry/hot-reload.js';
import type { SharedRun } from './sandbox/outcome.js';
import type { Sandbox } from './sandbox/sandbox.js';
import type { AddressBudget } from './state/address-budget.js';
import type { LiveSuccess } from './state/live-success.js';
import type { SharedState } from './state/shared-state.js';
import type { CallLogWriter } from './store/call-log-writer.js';
import type { Store } from './store/database.js';
import type { RefusedLog } from './store/refused-log.js';

export interface Services {
  settings: Settings;
  logger: Logger;
  store: Store;
  /** A billed call's hold, capture and release, for the store's database (core/billing/money.ts). */
  money: Money;
  state: SharedState;
  sandbox: Sandbox;
  registry: RegistryHolder;
  keys: KeyCache;
  callLog: CallLogWriter;
  /**
   * Requests that prove nothing (no key, a bad key, a limit's 429, an unverified payment notification): counted per
   * minute instead of logged one row each, and budgeted per address group (core/store/refused-log.ts).
   */
  refused: { log: RefusedLog; apiBudget: AddressBudget; notifyBudget: AddressBudget };
  plans: PlanPricing;
  metrics: Metrics;
  /** Identical calls in flight share one plugin run (per process). */
  flights: SingleFlight<SharedRun>;
  /** Payment instances, notify URLs and the onOrderCredited hooks (core/billing/payments/provider-registry.ts). */
  payments: Payments;
  /** SMTP or the outbox table, chosen by env (core/accounts/mail/mailer.ts). */
  mailer: Mailer;
  /** Outbound webhooks: `emit(event, data, userId?)` queues; a worker per process sends (core/notify/webhooks). */
  webhooks: Webhooks;
  /** Low-balance alerts: `observe(userId, before, after)` after a committed balance change. */
  alerts: BalanceAlerts;
  /** The last live success per operation (and platform) with canaries: canaries probe only without one. */
  liveSuccess: LiveSuccess;
  version: string;
  startedAt: number;
}
