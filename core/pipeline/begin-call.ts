// The call's starting state, from what the request says: both doors (the lean entry, lean-entry.ts, and the Koa
// route, koa-door.ts), the MCP endpoint and the canaries describe it the same way.
import type { Services } from '../services.js';
import { type ApiCall, NOT_CAPTURED } from './call.js';

/** The facts of the request a call starts from: the first fields of the call itself. */
export type CallRequest = Pick<
  ApiCall,
  'requestId' | 'startedNs' | 'method' | 'path' | 'ip' | 'headers' | 'query' | 'body' | 'bodyKind'
>;

export function newCall(r: CallRequest, s: Services): ApiCall {
  // Field by field, not a spread, and every field the stages may set, in the order call.ts declares them: every call
  // object then has one shape from start to end (the spread was a measurable cost per call).
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
    chargeAfterRun: undefined,
    dataJson: undefined,
    captured: NOT_CAPTURED,
    cacheTtl: undefined,
    pluginMs: undefined,
    upstream: undefined,
    costMicro: undefined,
    pinUpstream: undefined,
    pinProvider: undefined,
    chargeFree: undefined,
    sharedData: undefined,
    reservations: [],
    headersOut: {},
    canary: false,
  };
}
