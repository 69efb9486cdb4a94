// Prometheus metrics through prom-client. Two registries: the process's runtime metrics (event-loop lag, heap, GC,
// CPU; one per process, however many gateways a test builds in it) and this gateway's call metrics. Every metric
// has HELP and TYPE. Under `npm run cluster` the primary sums the workers' registries (core/cluster-metrics.ts),
// so each metric says how it aggregates.
import { Counter, collectDefaultMetrics, Gauge, type Metric, Registry } from 'prom-client';
import { CallSeries } from './call-metrics.js';

/** success: 2xx/3xx; denied: refused for the caller's reasons (4xx); failed: our or the upstream's fault (5xx). */
export type CallOutcome = 'success' | 'denied' | 'failed';

export interface MetricsSource {
  /** The exposition text to serve on /metrics. */
  text(): Promise<string>;
  readonly contentType: string;
}

export interface Metrics extends MetricsSource {
  /**
   * One finished /api call. `code` is the error code, or "OK". `chargedMicro` is what the call cost the caller, in
   * micro-TOKEN (0 for free and failed calls).
   */
  observeCall(
    operation: string,
    status: number,
    code: string,
    cached: boolean,
    seconds: number,
    chargedMicro: number,
  ): void;
  /**
   * A payment notification that failed verification: `rejected` (answered the provider's "fail"), or `throttled`
   * (its address had spent its budget of refusals: 429).
   */
  refusedNotification(instance: string, outcome: 'rejected' | 'throttled'): void;
  /** What a cluster worker hands to the primary for summing. */
  readonly registries: readonly Registry[];
}

/** Seconds. Cache hits answer in well under a millisecond, upstream calls in tens to thousands. */
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

let processRegistry: Registry | undefined;

/** Runtime metrics of this process, collected once per process (the collectors hook process-wide observers). */
function runtimeRegistry(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

export const outcomeOf = (status: number): CallOutcome =>
  status < 400 ? 'success' : status < 500 ? 'denied' : 'failed';

export function createMetrics(startedAt = Date.now()): Metrics {
  const registry = new Registry();
  const calls = new CallSeries(DURATION_BUCKETS);
  // Registry takes any object with name, help, type, aggregator, get() and reset(); its Metric type names the
  // classes prom-client ships, so ours is cast to it.
  for (const metric of calls.metrics({
    duration: {
      name: 'tollgate_call_duration_seconds',
      help: 'Time from receiving an /api call to its answer, in seconds; _count counts the calls.',
    },
    chargedMicro: {
      name: 'tollgate_charged_micro_total',
      help: 'Money charged to callers for /api calls, in micro-TOKEN (1 TOKEN = 1000000 micro-TOKEN).',
    },
    chargedCalls: {
      name: 'tollgate_charged_calls_total',
      help: '/api calls that cost their caller money (free, cached-free and failed calls are not counted).',
    },
  }))
    registry.registerMetric(metric as unknown as Metric);
  new Gauge({
    name: 'tollgate_uptime_seconds',
    help: 'Seconds since this gateway started (under a cluster: the longest-running worker).',
    aggregator: 'max',
    registers: [registry],
    collect() {
      this.set(Math.round((Date.now() - startedAt) / 1000));
    },
  });
  const refusedNotifications = new Counter({
    name: 'tollgate_refused_notifications_total',
    help: 'Payment notifications that failed verification, by instance and outcome (rejected or throttled).',
    labelNames: ['instance', 'outcome'],
    registers: [registry],
  });
  const registries = [runtimeRegistry(), registry];
  return {
    registries,
    contentType: registry.contentType,
    observeCall(operation, status, code, cached, seconds, micro) {
      calls.observe(operation, outcomeOf(status), code, cached ? 'hit' : 'miss', seconds, micro);
    },
    refusedNotification(instance, outcome) {
      refusedNotifications.inc({ instance, outcome });
    },
    async text() {
      return (await Promise.all(registries.map((r) => r.metrics()))).join('\n');
    },
  };
}
