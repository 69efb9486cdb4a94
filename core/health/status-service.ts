// The status report every process serves (/status, /status.json, the front page's dot, the admin view), read from
// the database at most every REFRESH_MS and shared by concurrent readers; a reader never waits for a refresh once a
// report exists (it gets the last one, a refresh runs behind it). Also the Prometheus gauges per operation and
// platform, set from the same report (every process shows the same values; the cluster primary keeps the max).
import { Gauge } from 'prom-client';
import type { Services } from '../services.js';
import { readBuckets, readStatuses } from './status-store.js';
import { buildReport, HOUR_MS, type StatusReport, WINDOWS } from './status-view.js';

export interface StatusService {
  /** The report, refreshed when older than REFRESH_MS (the first call waits for it). */
  report(): Promise<StatusReport>;
  /** The last report without waiting (null before the first); starts a refresh when stale. */
  peek(): StatusReport | null;
  /** Forget the cached report (after a canary pass in this process). */
  invalidate(): void;
}

const REFRESH_MS = 15_000;
const STATE_VALUE = { unknown: -1, ok: 0, degraded: 1, down: 2 } as const;
const gaugesOf = new WeakSet<object>();

export function createStatusService(s: Services, clock: () => number = Date.now): StatusService {
  let last: { at: number; report: StatusReport } | null = null;
  let loading: Promise<StatusReport> | null = null;

  const load = (): Promise<StatusReport> => {
    loading ??= (async () => {
      const now = clock();
      const since = now - WINDOWS['30d'].bucketMs * WINDOWS['30d'].count;
      const [subjects, rows] = await Promise.all([readStatuses(s.store.db), readBuckets(s.store.db, since, HOUR_MS)]);
      const report = buildReport(s.registry.current.config, subjects, rows, now);
      last = { at: now, report };
      return report;
    })().finally(() => (loading = null));
    return loading;
  };
  const stale = (): boolean => !last || clock() - last.at >= REFRESH_MS;

  const service: StatusService = {
    async report() {
      if (!last) return load();
      if (stale()) load().catch((err: Error) => s.logger.warn('status refresh failed', { reason: err.message }));
      return last.report;
    },
    peek() {
      if (stale()) load().catch((err: Error) => s.logger.warn('status refresh failed', { reason: err.message }));
      return last?.report ?? null;
    },
    invalidate() {
      last = null;
    },
  };
  registerGauges(s, service);
  return service;
}

function registerGauges(s: Services, status: StatusService): void {
  const registry = s.metrics.registries.at(-1);
  if (!registry || gaugesOf.has(registry)) return;
  gaugesOf.add(registry);
  new Gauge({
    name: 'tollgate_operation_status',
    help: 'Canary state per operation and platform: 0 ok, 1 degraded, 2 down, -1 not known yet.',
    labelNames: ['operation', 'platform'],
    aggregator: 'max',
    registers: [registry],
    async collect() {
      const report = await status.report();
      this.reset();
      for (const op of report.operations) {
        this.set({ operation: op.code, platform: '' }, STATE_VALUE[op.state]);
        for (const p of op.platforms) this.set({ operation: op.code, platform: p.platform }, STATE_VALUE[p.state]);
      }
    },
  });
  new Gauge({
    name: 'tollgate_operation_last_success_seconds',
    help: 'Unix time of the last success (canary or live) per operation and platform.',
    labelNames: ['operation', 'platform'],
    aggregator: 'max',
    registers: [registry],
    async collect() {
      const report = await status.report();
      this.reset();
      for (const op of report.operations)
        for (const x of [{ ...op, platform: '' }, ...op.platforms])
          if (x.last_success_at)
            this.set({ operation: op.code, platform: x.platform }, Math.round(Date.parse(x.last_success_at) / 1000));
    },
  });
}
