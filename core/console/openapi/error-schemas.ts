// Error responses of the OpenAPI document: grouped by HTTP status, each listing its catalogue codes, every one
// the Failure envelope.
import { ERROR_CATALOGUE, type ErrorCode } from '../../http/errors.js';

type Json = Record<string, unknown>;

export const API_ERRORS: ErrorCode[] = [
  'INVALID_INPUT',
  'MISSING_API_KEY',
  'INVALID_API_KEY',
  'INSUFFICIENT_BALANCE',
  'KEY_DISABLED',
  'KEY_EXPIRED',
  'IP_NOT_ALLOWED',
  'OPERATION_NOT_ALLOWED',
  'UNKNOWN_OPERATION',
  'NOT_FOUND',
  'IDEMPOTENCY_CONFLICT',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED',
  'RATE_LIMITED',
  'CONCURRENCY_LIMITED',
  'UPSTREAM_FAILED',
  'UNAVAILABLE',
  'OPERATION_UNAVAILABLE',
  'UPSTREAM_TIMEOUT',
  'INTERNAL',
];
export const CONSOLE_ERRORS: ErrorCode[] = [
  'INVALID_INPUT',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'ACCOUNT_DISABLED',
  'RESOURCE_NOT_FOUND',
  'CONFLICT',
  'TOO_MANY_ATTEMPTS',
  'TOO_MANY_REQUESTS',
  'INTERNAL',
  // The database is unreachable (core/console/api/console-guard.ts).
  'UNAVAILABLE',
];

/** Error responses grouped by status, each listing its catalogue codes (codes missing from the catalogue are skipped). */
export function errorResponses(codes: ErrorCode[]): Json {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const c of codes) {
    const entry = ERROR_CATALOGUE[c];
    if (entry) byStatus.set(entry.status, [...(byStatus.get(entry.status) ?? []), c]);
  }
  const out: Json = {};
  for (const [status, list] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    out[String(status)] = {
      description: list.map((c) => `${c}: ${ERROR_CATALOGUE[c].message}`).join(' | '),
      content: {
        'application/json': {
          schema: {
            allOf: [
              { $ref: '#/components/schemas/Failure' },
              {
                type: 'object',
                properties: {
                  error: { type: 'object', properties: { code: { enum: list }, message: { type: 'string' } } },
                },
              },
            ],
          },
          example: {
            success: false,
            error: { code: list[0], message: ERROR_CATALOGUE[list[0]].message },
            deducted: 0,
            request_id: 'req_1M86R6AQKMtkdYmFmeE6d',
          },
        },
      },
    };
  }
  return out;
}
