// The lean door of /api: a call without a body (GET, or POST with nothing to read — what almost every caller
// sends) is answered straight from Node's request, ahead of the Koa stack, whose per-request work (context objects,
// the middleware chain, the router walking every console route) does not apply to it: no body to parse, no console
// route, no payment notification, no MCP. Like the Koa route (index.ts) it is a thin adapter over the /api edge
// (http/api-edge.ts) and runCall, so both answer the same bytes and headers.
// Everything else — calls with a body, HEAD (refused 405 by the router), /api/health, the balance look-up, odd
// request targets — is left to Koa, which still routes every /api path too.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { edgeRequestId, internalFailure, parseQuery, requestIp, sendAnswer } from '../http/api-edge.js';
import type { ClientIpResolver } from '../http/client-ip.js';
import type { Services } from '../services.js';
import { BALANCE_PATH } from './balance-by-key.js';
import { newCall } from './begin-call.js';
import { runCall } from './index.js';

/**
 * Origin-form targets under /api/ with at least one character of path; no '#' or whitespace anywhere (Koa's URL
 * parser takes a slower, different road for those, so they stay with Koa and are parsed the one way).
 */
const TARGET = /^\/api\/[^?#\s]+(?:\?[^#\s]*)?$/;

/** Paths of their own under /api (routed before /api/{code}; the router matches them case-insensitively). */
const OWN_ROUTES = new Set(['/api/health', BALANCE_PATH]);

/** The lean door's request target, or undefined when the request is Koa's. */
function leanTarget(req: IncomingMessage): string | undefined {
  const { method, headers, url } = req;
  if (method !== 'GET' && method !== 'POST') return undefined;
  // Koa's bodyParser reads POST bodies only; a GET body is ignored on both entries.
  if (method === 'POST' && (Number(headers['content-length'] ?? 0) > 0 || headers['transfer-encoding'] !== undefined))
    return undefined;
  if (url === undefined || !TARGET.test(url)) return undefined;
  const q = url.indexOf('?');
  const path = (q < 0 ? url : url.slice(0, q)).toLowerCase();
  return OWN_ROUTES.has(path.endsWith('/') ? path.slice(0, -1) : path) ? undefined : url;
}

function answer(
  req: IncomingMessage,
  res: ServerResponse,
  method: string,
  url: string,
  s: Services,
  ip: ClientIpResolver,
): void {
  const requestId = edgeRequestId();
  const startedNs = process.hrtime.bigint();
  const q = url.indexOf('?');
  // runCall turns stage failures into answers itself; this is the last line, as requestContext is for Koa.
  const failed = (err: unknown): void => {
    s.logger.error('request failed', { request_id: requestId, path: url.slice(0, 200), reason: (err as Error).stack });
    sendAnswer(res, requestId, internalFailure(requestId, req.headers['accept-language']), s.logger);
  };
  try {
    const call = newCall(
      {
        requestId,
        startedNs,
        method,
        path: q < 0 ? url : url.slice(0, q),
        ip: requestIp(req, ip),
        headers: req.headers,
        query: q < 0 ? {} : parseQuery(url.slice(q + 1)),
        body: undefined,
        bodyKind: 'none',
      },
      s,
    );
    const answered = runCall(call, s);
    if (answered instanceof Promise) answered.then((a) => sendAnswer(res, requestId, a, s.logger), failed);
    else sendAnswer(res, requestId, answered, s.logger);
  } catch (err) {
    failed(err);
  }
}

/** Takes the request (true) when it is a body-less /api call; otherwise leaves it for Koa (false). */
export function leanApiEntry(
  s: Services,
  ip: ClientIpResolver,
): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    const url = leanTarget(req);
    if (url === undefined) return false;
    answer(req, res, req.method as string, url, s, ip);
    return true;
  };
}
