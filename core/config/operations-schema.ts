// The meta-schema operations.yaml is validated against at load. Errors name the file, the code and the JSON pointer.
import { CANARY_META } from './canary-config.js';
import { RESPONSE_META, RESPONSE_META_DEFS } from './response-fields.js';
import { upstreamsMetaSchema } from './upstream-schema.js';

export const OPERATION_CODE_PATTERN = '^[a-z][a-z0-9_]{0,31}$';

const money = { type: 'number', minimum: 0, maximum: 1_000_000 } as const;
/** Customer-facing text: one string for both languages, or { zh, en }. */
const text = (maxLength: number) =>
  ({
    oneOf: [
      { type: 'string', minLength: 1, maxLength },
      {
        type: 'object',
        additionalProperties: false,
        required: ['zh', 'en'],
        properties: {
          zh: { type: 'string', minLength: 1, maxLength },
          en: { type: 'string', minLength: 1, maxLength },
        },
      },
    ],
  }) as const;

export const operationsMetaSchema = {
  $id: 'tollgate/operations.yaml',
  $defs: RESPONSE_META_DEFS,
  type: 'object',
  additionalProperties: false,
  required: ['operations'],
  properties: {
    operations: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        // `plugin` may be left out when `upstreams` is given (it is then `http`): operations-loader.ts checks it.
        required: ['code', 'price_per_call', 'input'],
        properties: {
          code: { type: 'string', pattern: OPERATION_CODE_PATTERN },
          name: text(80),
          description: text(2000),
          plugin: { type: 'string', pattern: '^[a-z][a-z0-9-]{0,63}$' },
          price_per_call: money,
          cache_ttl: { type: 'integer', minimum: 0, maximum: 31_536_000 },
          timeout_ms: { type: 'integer', minimum: 1, maximum: 120_000 },
          enabled: { type: 'boolean' },
          input: {
            type: 'object',
            required: ['type'],
            properties: {
              type: { const: 'object' },
              properties: {
                type: 'object',
                // A property's description is customer text too (docs page, debugger): one string or { zh, en }.
                additionalProperties: { type: 'object', properties: { description: text(500) } },
              },
            },
          },
          example: { type: 'object' },
          response_example: { type: 'object' },
          // The fields of `data` on success (core/config/response-fields.ts); response_example must match them.
          response: RESPONSE_META,
          options: { type: 'object' },
          // HTTP APIs called by configuration, in priority tiers (core/config/upstream-config.ts).
          upstreams: upstreamsMetaSchema,
          // JSONata over the answer's `data`: false makes a successful answer free (e.g. nothing was found).
          charge_when: { type: 'string', minLength: 1, maxLength: 2000 },
          // With plugin: and upstreams: the plugin answers first; the upstreams only when this says true over it.
          fallback_when: { type: 'string', minLength: 1, maxLength: 2000 },
          // Any one group of options fully set makes the operation available (core/config/availability.ts).
          requires: {
            type: 'array',
            minItems: 1,
            items: { type: 'array', minItems: 1, items: { type: 'string', pattern: '^[a-z][a-z0-9_]*$' } },
          },
          // Sample calls that watch the upstream (core/config/canary-config.ts).
          canary: CANARY_META,
          routes: {
            type: 'array',
            items: { type: 'string', pattern: '^(GET|POST) /api/[A-Za-z0-9_\\-/:]+$' },
          },
        },
      },
    },
    plans: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'name', 'price', 'duration_days', 'quota', 'codes'],
        properties: {
          id: { type: 'string', pattern: '^[a-z][a-z0-9_-]{0,31}$' },
          name: text(80),
          description: text(500),
          price: money,
          duration_days: { type: 'integer', minimum: 1, maximum: 3660 },
          grant_tokens: money,
          quota: {
            type: 'object',
            additionalProperties: false,
            required: ['calls_per_day'],
            properties: {
              calls_per_day: { type: 'integer', minimum: 0 },
              concurrency: { type: 'integer', minimum: 0 },
              cache_free: { type: 'boolean' },
            },
          },
          codes: { type: 'array', items: { type: 'string', pattern: OPERATION_CODE_PATTERN } },
        },
      },
    },
    packages: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'name', 'price', 'tokens'],
        properties: {
          id: { type: 'string', pattern: '^[a-z][a-z0-9_-]{0,31}$' },
          name: text(80),
          description: text(500),
          price: money,
          tokens: money,
        },
      },
    },
    // What a new account gets: trial_tokens TOKEN once (0 = none), at sign-up or, when email verification is
    // required, at verification. TRIAL_CREDIT in the environment overrides it.
    signup: {
      type: 'object',
      additionalProperties: false,
      properties: { trial_tokens: money },
    },
    // What the built-in manual payment method tells a buyer: whom to pay, where, what to quote. {order} and
    // {amount} are filled per order. A manual instance of PAYMENTS_FILE with its own instructions keeps those.
    manual_payment: {
      type: 'object',
      additionalProperties: false,
      required: ['instructions'],
      properties: { instructions: text(2000) },
    },
  },
} as const;
