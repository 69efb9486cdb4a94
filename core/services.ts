// Everything a request needs, built once in main.ts (or by the test helper) and passed in: no singletons.
import type { Settings } from './config/env.js';
import type { Logger } from './http/logger.js';
import type { Store } from './store/database.js';
import type { SharedState } from './state/shared-state.js';
import type { Sandbox } from './sandbox/sandbox.js';
import type { RegistryHolder } from './config/hot-reload.js';
import type { KeyCache } from './accounts/key-cache.js';
import type { CallLogWriter } from './store/call-log-writer.js';
import type { PlanPricing } from './billing/plan-pricing.js';
import type { Metrics } from './http/metrics.js';
import type { RunResult } from './sandbox/sandbox.js';
import type { SingleFlight } from './pipeline/single-flight.js';

export interface Services {
  settings: Settings;
  logger: Logger;
  store: Store;
  state: SharedState;
  sandbox: Sandbox;
  registry: RegistryHolder;
  keys: KeyCache;
  callLog: CallLogWriter;
  plans: PlanPricing;
  metrics: Metrics;
  /** Identical calls in flight share one plugin run (per process). */
  flights: SingleFlight<RunResult>;
  version: string;
  startedAt: number;
}
