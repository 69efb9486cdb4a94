// First middleware of every request: a request id (X-Request-Id), the start time, security headers, and the
// one error shape for anything that escapes a handler (no internals leak; the request id is the thread).
import type { Context, Next } from 'koa';
import { newRequestId } from '../accounts/secrets.js';
import type { Logger } from '../kernel/logger.js';
import { callerLocale } from './envelope.js';
import { DETAILS } from './error-details.js';
import { ApiError, type Detail, ERROR_CATALOGUE, type ErrorCode, localizedMessage } from './errors.js';

/** On every answer, the lean /api entry's too (core/pipeline/lean-entry.ts). */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

function codeForStatus(status: number): ErrorCode {
  if (status === 413) return 'PAYLOAD_TOO_LARGE';
  if (status === 415) return 'UNSUPPORTED_MEDIA_TYPE';
  if (status === 400 || status === 422) return 'INVALID_INPUT';
  if (status === 404) return 'UNKNOWN_OPERATION';
  return 'INTERNAL';
}

/** 405 with the router's Allow list (TRACE/QUERY come as 501 from the router: also 405), else 404. */
function unrouted(ctx: Context): ApiError {
  const allow = ctx.response.get('Allow');
  const where = `${ctx.method} ${ctx.path.slice(0, 200)}`;
  if (ctx.status !== 404 && allow) return new ApiError('METHOD_NOT_ALLOWED', DETAILS.methodNotAllowed(where, allow));
  ctx.remove('Allow');
  return new ApiError('RESOURCE_NOT_FOUND', DETAILS.nothingAt(where));
}

export function requestContext(logger: Logger) {
  return async (ctx: Context, next: Next): Promise<void> => {
    ctx.state.requestId = newRequestId();
    ctx.state.startedNs = process.hrtime.bigint();
    ctx.set('X-Request-Id', ctx.state.requestId as string);
    for (const [k, v] of Object.entries(SECURITY_HEADERS)) ctx.set(k, v);
    try {
      await next();
      // Nothing answered (no route, or the router only set 405/501 and Allow): still the JSON envelope.
      if (ctx.body == null && (ctx.status === 404 || ctx.status === 405 || ctx.status === 501)) throw unrouted(ctx);
    } catch (err) {
      const e = err as Error & { status?: number; expose?: boolean };
      let code: ErrorCode;
      let message: Detail | undefined;
      let status: number;
      if (err instanceof ApiError) {
        code = err.code;
        message = err.detail;
        status = err.status;
      } else {
        status = e.status && e.status >= 400 && e.status < 500 ? e.status : 500;
        code = codeForStatus(status);
        message = status === 400 && /JSON|parse/i.test(e.message) ? DETAILS.badJson() : undefined;
        if (code === 'INTERNAL')
          logger.error('request failed', {
            request_id: ctx.state.requestId,
            path: ctx.path,
            reason: e.stack ?? e.message,
          });
        status = ERROR_CATALOGUE[code].status;
      }
      const text = localizedMessage(code, message, callerLocale(ctx.get('accept-language')));
      ctx.status = status;
      ctx.type = 'application/json; charset=utf-8';
      ctx.body = JSON.stringify({
        success: false,
        error: { code, message: text },
        deducted: 0,
        request_id: ctx.state.requestId,
      });
    }
  };
}
