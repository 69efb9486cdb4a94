// /console/api/admin/canaries: every canary subject's state with the failure detail and the next probe (the public
// page leaves the detail out), the canaries configured, and the stored results newest first (probes and counted
// live successes) for one operation or platform over the last hours.
import type Router from '@koa/router';
import { readHistory, readStatuses } from '../../health/status-store.js';
import type { Services } from '../../services.js';
import { requireAdmin } from './auth.js';
import { queryInt, queryOf } from './input.js';

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());
const HOUR_MS = 3_600_000;

export function adminCanaryRoutes(router: Router, s: Services): void {
  const db = s.store.db;
  const admin = requireAdmin(s);

  router.get('/console/api/admin/canaries', admin, async (ctx) => {
    const subjects = await readStatuses(db);
    ctx.body = {
      subjects: subjects.map((r) => ({
        operation: r.operation,
        platform: r.platform,
        state: r.state,
        since: iso(r.since),
        last_success_at: iso(r.lastSuccessAt),
        last_failure_at: iso(r.lastFailureAt),
        last_class: r.lastClass,
        last_field: r.lastField,
        last_detail: r.lastDetail,
        failures: r.failures,
        successes: r.successes,
        next_probe_at: iso(r.nextProbeAt),
      })),
      canaries: s.registry.current
        .list()
        .filter((op) => op.canary)
        .map((op) => ({
          operation: op.code,
          available: op.availability.available,
          interval_s: op.canary!.intervalMs / 1000,
          failures_to_down: op.canary!.failuresToDown,
          successes_to_recover: op.canary!.successesToRecover,
          schema: op.canary!.schema,
          samples: op.canary!.samples.map((x) => ({ platform: x.platform, input: x.input, assert: x.assert })),
        })),
    };
  });

  router.get('/console/api/admin/canaries/history', admin, async (ctx) => {
    const hours = queryInt(ctx, 'hours', 1, 31 * 24, 24);
    const limit = queryInt(ctx, 'limit', 1, 1000, 200);
    const rows = await readHistory(db, {
      operation: queryOf(ctx, 'operation'),
      platform: queryOf(ctx, 'platform'),
      since: Date.now() - hours * HOUR_MS,
      limit,
    });
    ctx.body = { hours, results: rows.map((r) => ({ ...r, created_at: iso(r.created_at) })) };
  });
}
