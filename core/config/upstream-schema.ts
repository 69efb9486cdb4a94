// The meta-schema of an operation's `upstreams:` (HTTP APIs called by configuration, run by plugins/http) and of
// `charge_when:`. Expressions are JSONata text; they are compiled at load (core/config/upstream-expressions.ts).

const expression = { type: 'string', minLength: 1, maxLength: 4000 } as const;
/** A template: literal text with {{ JSONata }} parts and ${ENV} secrets. */
const template = { type: 'string', maxLength: 4000 } as const;
const templateMap = {
  type: 'object',
  propertyNames: { pattern: '^[A-Za-z0-9_.\\-\\[\\]]{1,128}$' },
  additionalProperties: template,
} as const;
const text = {
  oneOf: [
    { type: 'string', minLength: 1, maxLength: 300 },
    {
      type: 'object',
      additionalProperties: false,
      required: ['zh', 'en'],
      properties: {
        zh: { type: 'string', minLength: 1, maxLength: 300 },
        en: { type: 'string', minLength: 1, maxLength: 300 },
      },
    },
  ],
} as const;

export const UPSTREAM_ERROR_CODES = [
  'INVALID_INPUT',
  'NOT_FOUND',
  'UNSUPPORTED',
  'UPSTREAM_FAILED',
  'UPSTREAM_TIMEOUT',
  'UNAVAILABLE',
] as const;

export const upstreamsMetaSchema = {
  type: 'array',
  minItems: 1,
  maxItems: 16,
  items: {
    type: 'object',
    additionalProperties: false,
    required: ['id', 'request', 'result'],
    properties: {
      id: { type: 'string', pattern: '^[a-z][a-z0-9_-]{0,31}$' },
      priority: { type: 'integer', minimum: 1, maximum: 100 },
      weight: { type: 'integer', minimum: 0, maximum: 1000 },
      cost_per_call: { type: 'number', minimum: 0, maximum: 1_000_000 },
      timeout_ms: { type: 'integer', minimum: 1, maximum: 120_000 },
      enabled: { type: 'boolean' },
      /** JSONata over { input }: answers are kept per value (e.g. a number's 7-digit prefix), not per call. */
      cache_key: expression,
      /** Seconds such an answer is kept (default 7 days). */
      cache_ttl: { type: 'integer', minimum: 1, maximum: 366 * 86_400 },
      /** Seconds a NOT_FOUND for a key is kept (default a day): unknown keys are not asked again meanwhile. */
      not_found_ttl: { type: 'integer', minimum: 1, maximum: 366 * 86_400 },
      request: {
        type: 'object',
        additionalProperties: false,
        required: ['url'],
        properties: {
          method: { enum: ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'] },
          url: { type: 'string', pattern: '^https?://', maxLength: 2000 },
          let: {
            type: 'object',
            propertyNames: { pattern: '^[a-z][A-Za-z0-9_]{0,31}$' },
            additionalProperties: expression,
          },
          query: templateMap,
          headers: templateMap,
          form: templateMap,
          json: {},
        },
        not: { required: ['form', 'json'] },
      },
      success: expression,
      result: expression,
      errors: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['when', 'code'],
          properties: {
            when: expression,
            code: { enum: UPSTREAM_ERROR_CODES },
            message: text,
            /** Try the next upstream (default: true for UPSTREAM_*, UNAVAILABLE; false for the caller's own errors). */
            next: { type: 'boolean' },
            /** Take this upstream out of rotation for this long (bad credential, quota used up) and raise an alert. */
            disable_s: { type: 'integer', minimum: 1, maximum: 7 * 86_400 },
          },
        },
      },
      circuit: {
        type: 'object',
        additionalProperties: false,
        properties: {
          failures: { type: 'integer', minimum: 1, maximum: 1000 },
          cool_down_s: { type: 'integer', minimum: 1, maximum: 86_400 },
        },
      },
    },
  },
} as const;
