// OpenAPI schema of the status report (GET /status.json, core/health/status-view.ts).
type Schema = Record<string, unknown>;

const str: Schema = { type: 'string' };
const int: Schema = { type: 'integer' };
const time: Schema = { type: 'string', format: 'date-time' };
const orNull = (s: Schema): Schema => ({ ...s, type: [s.type as string, 'null'] });
const o = (properties: Record<string, Schema>): Schema => ({
  type: 'object',
  required: Object.keys(properties),
  properties,
});
const list = (item: Schema): Schema => ({ type: 'array', items: item });
const state: Schema = { enum: ['unknown', 'ok', 'degraded', 'down'] };
const failureClass: Schema = {
  type: ['string', 'null'],
  description:
    'shape_changed, risk_control, credential, quota, timeout, network, sample_gone or upstream_error; null when no failure is known',
};

const subject = {
  state,
  since: orNull(time),
  last_success_at: orNull(time),
  last_failure_at: orNull(time),
  last_class: failureClass,
  last_field: { type: ['string', 'null'], description: 'the answer field a shape check found missing or changed' },
};
const bar = o({ start: time, ok: int, total: int, state: { enum: ['ok', 'degraded', 'down', 'none'] } });

export const STATUS_REPORT: Schema = o({
  state,
  updated_at: time,
  operations: list(
    o({
      code: str,
      name: o({ zh: str, en: str }),
      ...subject,
      platforms: list(o({ platform: str, ...subject })),
      bars: o({ '24h': list(bar), '7d': list(bar), '30d': list(bar) }),
    }),
  ),
});

export const STATUS_OPENAPI = {
  operationId: 'statusReport',
  summary:
    'Public status of every operation with canaries: ok / degraded / down, since when, last success, last failure class, per platform, and bars over 24 h (hourly), 7 d (6-hourly) and 30 d (daily)',
  tags: ['status'],
  security: [],
  responses: {
    '200': { description: 'The status report', content: { 'application/json': { schema: STATUS_REPORT } } },
    '405': { description: 'Only GET and HEAD are answered here' },
  },
};
