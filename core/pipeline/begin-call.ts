// Stage: request id and the call's starting state, from what the request says (the Koa route and the lean entry
// for body-less calls, core/pipeline/lean-entry.ts, both describe it the same way).
import type { Context } from 'koa';
import { clientIpOf } from '../http/client-ip.js';
import type { Services } from '../services.js';
import type { ApiCall } from './call.js';

/** The facts of the request a call starts from: the first fields of the call itself. */
export type CallRequest = Pick<
  ApiCall,
  'requestId' | 'startedNs' | 'method' | 'path' | 'ip' | 'headers' | 'query' | 'body' | 'bodyKind'
>;

export function newCall(r: CallRequest, s: Services): ApiCall {
  // Field by field, not a spread: every call object then has one shape (the spread was a measurable cost per call).
  return {
    requestId: r.requestId,
    startedNs: r.startedNs,
    method: r.method,
    path: r.path,
    ip: r.ip,
    headers: r.headers,
    query: r.query,
    body: r.body,
    bodyKind: r.bodyKind,
    registry: s.registry.current,
    identity: undefined,
    operation: undefined,
    pathParams: {},
    input: undefined,
    idempotency: undefined,
    rate: undefined,
    price: 0,
    freeReason: null,
    planGrant: undefined,
    cacheKey: undefined,
    cached: false,
    hold: undefined,
    charged: 0,
    balanceAfter: undefined,
    dataJson: undefined,
    bodyOut: undefined,
    logged: undefined,
    cacheTtl: undefined,
    pluginMs: undefined,
    reservations: [],
    headersOut: {},
    canary: false,
  };
}

/** A body is announced by Content-Length > 0 or by Transfer-Encoding (chunked uploads have no length). */
function bodyKindOf(ctx: Context): ApiCall['bodyKind'] {
  if (ctx.method !== 'POST' || (!ctx.request.length && ctx.req.headers['transfer-encoding'] === undefined))
    return 'none';
  if (ctx.is('application/json', '+json')) return 'json';
  if (ctx.is('application/x-www-form-urlencoded')) return 'form';
  return 'unsupported';
}

/** A call from a Koa request (after the body parser). */
export function beginCall(ctx: Context, s: Services): ApiCall {
  const kind = bodyKindOf(ctx);
  return newCall(
    {
      requestId: ctx.state.requestId as string,
      startedNs: ctx.state.startedNs as bigint,
      method: ctx.method,
      path: ctx.path,
      ip: clientIpOf(ctx),
      headers: ctx.headers,
      query: ctx.query as Record<string, unknown>,
      body: kind === 'json' || kind === 'form' ? (ctx.request as { body?: unknown }).body : undefined,
      bodyKind: kind,
    },
    s,
  );
}
