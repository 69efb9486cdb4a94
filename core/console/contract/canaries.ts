// The operator's view of the canaries: every subject's state (an operation, a platform of it, one of its
// configured upstreams `upstream:<id>`, or one of its plugin's own providers `provider:<id>`) with the failure
// detail and the next probe (the public status page leaves the detail out), the canaries configured, and the
// stored results newest first (probes and counted live successes) for one operation or platform over the last hours.
import { defineRoutes } from './define.js';
import { answer, as, list, oneOf, orNull, query, rBool, rInt, rNumber, rStr, rTime, Type, upTo } from './schema.js';

const failureClass = as<string | null>({
  type: ['string', 'null'],
  description:
    'shape_changed, risk_control, credential, quota, timeout, network, sample_gone or upstream_error; null when no failure is known',
});

const subject = answer({
  operation: rStr,
  platform: rStr,
  state: oneOf(['unknown', 'ok', 'degraded', 'down']),
  since: orNull(rTime),
  last_success_at: orNull(rTime),
  last_failure_at: orNull(rTime),
  last_class: failureClass,
  last_field: as<string | null>({
    type: ['string', 'null'],
    description: 'the answer field a shape check found missing or changed',
  }),
  last_detail: orNull(rStr),
  failures: rInt,
  successes: rInt,
  next_probe_at: rTime,
});

const canary = answer({
  operation: rStr,
  available: rBool,
  interval_s: rNumber,
  failures_to_down: rInt,
  successes_to_recover: rInt,
  schema: rBool,
  samples: list(answer({ platform: rStr, input: Type.Unknown(), assert: list(rStr) })),
});

const result = answer({
  operation: rStr,
  platform: rStr,
  source: oneOf(['canary', 'live']),
  ok: rBool,
  failure_class: failureClass,
  field: orNull(rStr),
  detail: orNull(rStr),
  duration_ms: orNull(rNumber),
  request_id: orNull(rStr),
  created_at: rTime,
});

export const CANARIES = defineRoutes({
  adminCanaries: {
    method: 'GET',
    path: '/console/api/admin/canaries',
    summary:
      'Canary state per operation and platform (with the last failure detail and the next probe) and the canaries configured',
    auth: 'admin',
    responses: { 200: answer({ subjects: list(subject), canaries: list(canary) }) },
  },
  adminCanaryHistory: {
    method: 'GET',
    path: '/console/api/admin/canaries/history',
    summary: 'Stored canary results, newest first: probes and the live successes counted instead of probes',
    auth: 'admin',
    query: query({
      operation: Type.Optional(Type.String({ maxLength: 64, description: 'operation code' })),
      platform: Type.Optional(
        Type.String({ maxLength: 32, description: "platform ('' for an operation-wide sample)" }),
      ),
      hours: upTo(744, '1-744, default 24'),
      limit: upTo(1000, '1-1000, default 200'),
    }),
    responses: { 200: answer({ hours: rInt, results: list(result) }) },
  },
});
