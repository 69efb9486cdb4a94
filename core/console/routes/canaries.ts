// The operator's canary view (core/console/contract/canaries.ts): the stored states and results
// (core/health/status-store.ts) and the canaries configured in operations.yaml.
import { readHistory, readStatuses } from '../../health/status-store.js';
import type { Services } from '../../services.js';
import { iso } from '../api/present.js';
import { CANARIES } from '../contract/canaries.js';
import { implement } from './mount-routes.js';

const HOUR_MS = 3_600_000;

export function canaryRoutes(s: Services) {
  const db = s.store.db;
  return implement(CANARIES, {
    adminCanaries: async () => {
      const subjects = await readStatuses(db);
      return {
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
        canaries: s.registry.current.list().flatMap((op) =>
          op.canary
            ? [
                {
                  operation: op.code,
                  available: op.availability.available,
                  interval_s: op.canary.intervalMs / 1000,
                  failures_to_down: op.canary.failuresToDown,
                  successes_to_recover: op.canary.successesToRecover,
                  schema: op.canary.schema,
                  samples: op.canary.samples.map((x) => ({ platform: x.platform, input: x.input, assert: x.assert })),
                },
              ]
            : [],
        ),
      };
    },

    adminCanaryHistory: async ({ query }) => {
      const hours = query.hours ?? 24;
      const rows = await readHistory(db, {
        operation: query.operation,
        platform: query.platform,
        since: Date.now() - hours * HOUR_MS,
        limit: query.limit ?? 200,
      });
      return {
        hours,
        results: rows.map((r) => ({ ...r, source: r.source as 'canary' | 'live', created_at: iso(r.created_at) })),
      };
    },
  });
}
