// The Koa door of /api: calls with a body (the lean door, lean-entry.ts, answers the body-less ones), HEAD refused by
// the router, and the MCP endpoint's tool calls. A thin adapter like the lean door: the request id, headers, client
// IP, failure envelope and writing are the /api edge's (http/api-edge.ts, requestContext), the query is parsed by
// the edge's parser, and the call runs through runCall.
import type { Context } from 'koa';
import { answerOnKoa, parseQuery } from '../http/api-edge.js';
import { clientIpOf } from '../http/client-ip.js';
import type { Services } from '../services.js';
import { newCall } from './begin-call.js';
import type { ApiCall } from './call.js';
import { runCall } from './index.js';

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
      query: parseQuery(ctx.querystring),
      body: kind === 'json' || kind === 'form' ? (ctx.request as { body?: unknown }).body : undefined,
      bodyKind: kind,
    },
    s,
  );
}

/** The Koa route of /api/{code}. */
export async function handleApiCall(ctx: Context, s: Services): Promise<void> {
  answerOnKoa(ctx, await runCall(beginCall(ctx, s), s), s.logger);
}
