// The one error catalogue: every code has exactly one HTTP status and one public message.
// README lists them all; test/http/errors-readme.test.ts fails when one is missing there.
export const ERROR_CATALOGUE = {
  INVALID_INPUT: { status: 400, message: 'The request parameters are not valid.' },
  MISSING_API_KEY: { status: 401, message: 'No API key: send it in the X-API-Key header or the api_key parameter.' },
  INVALID_API_KEY: { status: 401, message: 'The API key is not valid.' },
  INSUFFICIENT_BALANCE: { status: 402, message: 'The balance is too low for this call. Top up to continue.' },
  KEY_DISABLED: { status: 403, message: 'This API key is disabled.' },
  KEY_EXPIRED: { status: 403, message: 'This API key has expired.' },
  IP_NOT_ALLOWED: { status: 403, message: 'This API key may not be used from this IP address.' },
  OPERATION_NOT_ALLOWED: { status: 403, message: 'This API key may not call this operation.' },
  UNKNOWN_OPERATION: { status: 404, message: 'There is no such operation.' },
  NOT_FOUND: { status: 404, message: 'The upstream says the requested item does not exist.' },
  IDEMPOTENCY_CONFLICT: { status: 409, message: 'This Idempotency-Key was used for a different request, or that request is still running.' },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'The request body is too large.' },
  // HTTP edge: refused before any stage runs, never charged.
  METHOD_NOT_ALLOWED: { status: 405, message: 'This method is not allowed here; the Allow header lists the methods that are.' },
  REQUEST_TIMEOUT: { status: 408, message: 'The request was not received in time.' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'Unsupported Content-Type or Content-Encoding: send a JSON body (application/json).' },
  HEADERS_TOO_LARGE: { status: 431, message: 'The request line and headers are too large.' },
  UNSUPPORTED: { status: 422, message: 'The request is well-formed but not supported by this operation.' },
  RATE_LIMITED: { status: 429, message: 'Too many requests for this API key. Retry after the time in Retry-After.' },
  CONCURRENCY_LIMITED: { status: 429, message: 'Too many calls in flight for this API key. Retry after the time in Retry-After.' },
  UPSTREAM_FAILED: { status: 502, message: 'The upstream service failed.' },
  UNAVAILABLE: { status: 503, message: 'The service or operation is unavailable right now.' },
  UPSTREAM_TIMEOUT: { status: 504, message: 'The upstream service did not answer in time.' },
  // Console API (/console/api/*): user tokens, roles and the purchase side.
  UNAUTHORIZED: { status: 401, message: 'Log in first: send a valid user token as Authorization: Bearer ut_...' },
  FORBIDDEN: { status: 403, message: 'This needs the admin role.' },
  ACCOUNT_DISABLED: { status: 403, message: 'This account is disabled.' },
  RESOURCE_NOT_FOUND: { status: 404, message: 'There is no such resource.' },
  CONFLICT: { status: 409, message: 'The request conflicts with the current state of the resource.' },
  TOO_MANY_ATTEMPTS: { status: 429, message: 'Too many failed attempts. Retry after the time in Retry-After.' },
  // Console accounts: sign-up switches, links, email verification, 2FA, mail.
  INVALID_TOKEN: { status: 400, message: 'This link or challenge is invalid, has expired or was already used.' },
  EMAIL_NOT_VERIFIED: { status: 403, message: 'Confirm your email first: follow the link in the mail we sent.' },
  REGISTRATION_CLOSED: { status: 403, message: 'Sign-up is closed on this server.' },
  EMAIL_DOMAIN_NOT_ALLOWED: { status: 403, message: 'Sign-up is not open to this email domain.' },
  TWO_FACTOR_REQUIRED: { status: 403, message: 'This server requires two-factor authentication for admins: turn it on under Security.' },
  MAIL_FAILED: { status: 502, message: 'The mail could not be sent.' },
  INTERNAL: { status: 500, message: 'Internal error. Quote the request id when reporting it.' },
} as const;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

export const ERROR_CODES = Object.keys(ERROR_CATALOGUE) as ErrorCode[];

export function statusOf(code: ErrorCode): number {
  return ERROR_CATALOGUE[code].status;
}

/** A refusal decided by a stage: a value, not an exception. */
export interface Denial {
  code: ErrorCode;
  /** Specific message; the catalogue's message is used when absent. */
  message?: string;
  /** Seconds, for 429 and 503. */
  retryAfter?: number;
}

export function deny(code: ErrorCode, message?: string, retryAfter?: number): Denial {
  return { code, message, retryAfter };
}

/** Raised by console/admin handlers and turned into the same error shape by the error middleware. */
export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode,
    message?: string,
    readonly status: number = statusOf(code),
  ) {
    super(message ?? ERROR_CATALOGUE[code].message);
  }
}
