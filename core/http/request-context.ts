// First middleware of every Koa request: a request id (X-Request-Id), the start time, security headers, and the
// one error shape for anything that escapes a handler (no internals leak; the request id is the thread). Each of
// these is the /api edge's (api-edge.ts), so the lean entry and Koa answer alike.
import type { Context, Next } from 'koa';
import type { Logger } from '../kernel/logger.js';
import { edgeRequestId, failureText, JSON_TYPE, SECURITY_HEADERS } from './api-edge.js';
import { DETAILS } from './error-details.js';
import { ApiError, type Detail, ERROR_CATALOGUE, type ErrorCode } from './errors.js';

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
    ctx.state.requestId = edgeRequestId();
    ctx.state.startedNs = process.hrtime.bigint();
    ctx.set('X-Request-Id', ctx.state.requestId as string);
    for (const [k, v] of Object.entries(SECURITY_HEADERS)) ctx.set(k, v);
    try {
      await next();
      // Nothing answered (no route, or the router only set 405/501 and Allow): still the JSON envelope. An /api
      // answer written by the edge itself (ctx.respond false) is answered.
      if (ctx.respond !== false && ctx.body == null && (ctx.status === 404 || ctx.status === 405 || ctx.status === 501))
        throw unrouted(ctx);
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
      ctx.status = status;
      ctx.type = JSON_TYPE;
      ctx.body = failureText(code, message, ctx.state.requestId as string, ctx.get('accept-language'));
    }
  };
}
