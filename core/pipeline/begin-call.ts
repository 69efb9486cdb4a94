// Stage: request id and the call's starting state, taken from the Koa context once.
import type { Context } from 'koa';
import { clientIpOf } from '../http/client-ip.js';
import type { Services } from '../services.js';
import type { ApiCall } from './call.js';

/** A body is announced by Content-Length > 0 or by Transfer-Encoding (chunked uploads have no length). */
function bodyKindOf(ctx: Context): ApiCall['bodyKind'] {
  if (ctx.method !== 'POST' || (!ctx.request.length && ctx.req.headers['transfer-encoding'] === undefined))
    return 'none';
  if (ctx.is('application/json', '+json')) return 'json';
  if (ctx.is('application/x-www-form-urlencoded')) return 'form';
  return 'unsupported';
}

export function beginCall(ctx: Context, s: Services): ApiCall {
  const kind = bodyKindOf(ctx);
  return {
    requestId: ctx.state.requestId as string,
    startedNs: ctx.state.startedNs as bigint,
    method: ctx.method,
    path: ctx.path,
    ip: clientIpOf(ctx),
    headers: ctx.headers,
    query: ctx.query as Record<string, unknown>,
    body: kind === 'json' || kind === 'form' ? (ctx.request as { body?: unknown }).body : undefined,
    bodyKind: kind,
    registry: s.registry.current,
    pathParams: {},
    price: 0,
    freeReason: null,
    cached: false,
    charged: 0,
    reservations: [],
    headersOut: {},
  };
}
