// First middleware of every request: a request id (X-Request-Id), the start time, security headers, and the
// one error shape for anything that escapes a handler (no internals leak; the request id is the thread).
import type { Context, Next } from 'koa';
import { newRequestId } from '../accounts/secrets.js';
import { ApiError, ERROR_CATALOGUE, type ErrorCode } from './errors.js';
import type { Logger } from './logger.js';

const SECURITY_HEADERS: Record<string, string> = {
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

function codeForStatus(status: number): ErrorCode {
  if (status === 413) return 'PAYLOAD_TOO_LARGE';
  if (status === 400 || status === 415 || status === 422) return 'INVALID_INPUT';
  if (status === 404) return 'UNKNOWN_OPERATION';
  return 'INTERNAL';
}

export function requestContext(logger: Logger) {
  return async (ctx: Context, next: Next): Promise<void> => {
    ctx.state.requestId = newRequestId();
    ctx.state.startedNs = process.hrtime.bigint();
    ctx.set('X-Request-Id', ctx.state.requestId as string);
    for (const [k, v] of Object.entries(SECURITY_HEADERS)) ctx.set(k, v);
    try {
      await next();
    } catch (err) {
      const e = err as Error & { status?: number; expose?: boolean };
      let code: ErrorCode;
      let message: string;
      let status: number;
      if (err instanceof ApiError) {
        code = err.code;
        message = err.message;
        status = err.status;
      } else {
        status = e.status && e.status >= 400 && e.status < 500 ? e.status : 500;
        code = codeForStatus(status);
        message = status === 400 && /JSON|parse/i.test(e.message) ? 'The request body is not valid JSON.' : ERROR_CATALOGUE[code].message;
        if (code === 'INTERNAL') logger.error('request failed', { request_id: ctx.state.requestId, path: ctx.path, reason: e.stack ?? e.message });
        status = ERROR_CATALOGUE[code].status;
      }
      ctx.status = status;
      ctx.type = 'application/json; charset=utf-8';
      ctx.body = JSON.stringify({ success: false, error: { code, message }, deducted: 0, request_id: ctx.state.requestId });
    }
  };
}
