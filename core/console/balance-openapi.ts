// OpenAPI description of GET /api/_balance (core/pipeline/balance-by-key.ts).
const tokens = { type: 'number', description: 'TOKEN' };

export const BALANCE_OPENAPI = {
  operationId: 'balanceByKey',
  summary: "The key's user balance, plan quota left today and the key's own limits; free, never billed or logged",
  tags: ['operations'],
  responses: {
    '200': {
      description: 'Success envelope; deducted is always 0',
      content: {
        'application/json': {
          schema: {
            allOf: [
              { $ref: '#/components/schemas/Success' },
              {
                type: 'object',
                properties: {
                  data: {
                    type: 'object',
                    required: ['balance', 'available', 'plan', 'key'],
                    properties: {
                      balance: tokens,
                      available: { ...tokens, description: 'balance minus amounts held by calls in flight' },
                      plan: {
                        type: ['object', 'null'],
                        properties: {
                          id: { type: 'string' },
                          name: { type: 'string' },
                          ends_at: { type: 'string', format: 'date-time' },
                          calls_per_day: { type: 'integer' },
                          used_today: { type: 'integer' },
                          remaining_today: { type: 'integer' },
                          concurrency: { type: 'integer' },
                          cache_free: { type: 'boolean' },
                        },
                      },
                      key: {
                        type: 'object',
                        properties: {
                          id: { type: 'integer' },
                          expires_at: { type: ['string', 'null'], format: 'date-time' },
                          allowed_codes: { type: ['array', 'null'], items: { type: 'string' } },
                          ip_allow: { type: ['array', 'null'], items: { type: 'string' } },
                          rate_limit_per_sec: { type: 'integer' },
                          rate_limit_burst: { type: 'integer' },
                          max_concurrency: { type: 'integer' },
                          daily_spend_cap: { type: ['number', 'null'] },
                          spent_today: { type: ['number', 'null'] },
                          spend_cap_remaining: { type: ['number', 'null'] },
                        },
                      },
                    },
                  },
                },
              },
            ],
          },
        },
      },
    },
    ...Object.fromEntries(
      [
        ['401', 'MISSING_API_KEY or INVALID_API_KEY'],
        ['403', 'KEY_DISABLED, KEY_EXPIRED or IP_NOT_ALLOWED'],
        ['429', 'RATE_LIMITED: more than 5 a second (bursts of 20) for this key'],
      ].map(([status, description]) => [
        status,
        { description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Failure' } } } },
      ]),
    ),
  },
  parameters: [] as unknown[],
};
