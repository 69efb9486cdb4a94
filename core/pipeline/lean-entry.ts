// The lean entry of /api: a call without a body (GET, or POST with nothing to read — what almost every caller
// sends) is answered straight from Node's request, ahead of the Koa stack, whose per-request work (context objects,
// the middleware chain, the router walking every console route) does not apply to it: no body to parse, no console
// route, no payment notification, no MCP. It is also where answers can be written at the end of the turn
// (kernel/turn-end.ts). The call itself runs through the same pipeline (runCall) and answers the same bytes and
// headers as the Koa route.
// Everything else — calls with a body, HEAD (refused 405 by the router), /api/health, the balance look-up, odd
// request targets — is left to Koa, which still routes every /api path too.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { newRequestId } from '../accounts/secrets.js';
import type { ClientIpResolver } from '../http/client-ip.js';
import { callerLocale, failureBody } from '../http/envelope.js';
import { deny } from '../http/errors.js';
import { SECURITY_HEADERS } from '../http/request-context.js';
import { atTurnEnd } from '../kernel/turn-end.js';
import type { Services } from '../services.js';
import { BALANCE_PATH } from './balance-by-key.js';
import { newCall } from './begin-call.js';
import { runCall } from './index.js';
import { type ApiAnswer, JSON_TYPE } from './respond.js';

/**
 * Origin-form targets under /api/ with at least one character of path; no '#' or whitespace anywhere (Koa's URL
 * parser takes a slower, different road for those, so they stay with Koa and are parsed the one way).
 */
const TARGET = /^\/api\/[^?#\s]+(?:\?[^#\s]*)?$/;

/** The security headers every answer carries (request-context.ts), flat as writeHead takes them. */
const EDGE_HEADERS = Object.entries(SECURITY_HEADERS).flat();

/** Paths of their own under /api (routed before /api/{code}; the router matches them case-insensitively). */
const OWN_ROUTES = new Set(['/api/health', BALANCE_PATH]);

/**
 * The query as Koa's ctx.query reads it (koa/lib/search-params.js: URLSearchParams, a repeated name becomes an
 * array), which Koa does not export. Without '%' or '+' URLSearchParams only splits on '&' and the first '=', so
 * such a query (a phone number, a tracking number, a key) is split here directly; anything encoded goes through
 * URLSearchParams itself, so the decoding is the one Koa does.
 */
export function parseQuery(text: string): Record<string, unknown> {
  const out: Record<string, unknown> = Object.create(null);
  if (text.includes('%') || text.includes('+')) {
    for (const [key, value] of new URLSearchParams(text)) addParam(out, key, value);
    return out;
  }
  for (const pair of text.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    if (eq < 0) addParam(out, pair, '');
    else addParam(out, pair.slice(0, eq), pair.slice(eq + 1));
  }
  return out;
}

/** A module-level function: nothing to allocate per call. */
function addParam(out: Record<string, unknown>, key: string, value: string): void {
  const had = out[key];
  if (had === undefined) out[key] = value;
  else if (Array.isArray(had)) had.push(value);
  else out[key] = [had, value];
}

function isLean(req: IncomingMessage): boolean {
  const { method, headers } = req;
  if (method !== 'GET' && method !== 'POST') return false;
  // Koa's bodyParser reads POST bodies only; a GET body is ignored on both entries.
  if (method === 'POST' && (Number(headers['content-length'] ?? 0) > 0 || headers['transfer-encoding'] !== undefined))
    return false;
  const url = req.url ?? '';
  if (!TARGET.test(url)) return false;
  const q = url.indexOf('?');
  const path = (q < 0 ? url : url.slice(0, q)).toLowerCase();
  return !OWN_ROUTES.has(path.endsWith('/') ? path.slice(0, -1) : path);
}

/** Written at the end of the turn with the other answers of it (kernel/turn-end.ts: one wake-up of the reader). */
function send(res: ServerResponse, requestId: string, answer: ApiAnswer, s: Services): void {
  atTurnEnd(() => {
    try {
      writeAnswer(res, requestId, answer);
    } catch (err) {
      s.logger.error('answer could not be written', { request_id: requestId, reason: (err as Error).message });
      res.destroy();
    }
  });
}

function writeAnswer(res: ServerResponse, requestId: string, answer: ApiAnswer): void {
  res.writeHead(answer.status, [
    ...EDGE_HEADERS,
    'X-Request-Id',
    requestId,
    ...answer.headers,
    'Content-Type',
    JSON_TYPE,
    'Content-Length',
    String(Buffer.byteLength(answer.body)),
  ]);
  // A string, not a Buffer: Node then sends the head and the body in one chunk.
  res.end(answer.body);
}

function answer(req: IncomingMessage, res: ServerResponse, s: Services, ip: ClientIpResolver): void {
  const requestId = newRequestId();
  const startedNs = process.hrtime.bigint();
  const url = req.url!;
  const q = url.indexOf('?');
  // runCall turns stage failures into answers itself; this is the last line, as requestContext is for Koa.
  const failed = (err: unknown): void => {
    s.logger.error('request failed', { request_id: requestId, path: url.slice(0, 200), reason: (err as Error).stack });
    const locale = callerLocale(req.headers['accept-language']);
    const body = JSON.stringify(failureBody(deny('INTERNAL'), requestId, undefined, locale));
    send(res, requestId, { status: 500, headers: [], body }, s);
  };
  try {
    const xff = req.headers['x-forwarded-for'];
    const call = newCall(
      {
        requestId,
        startedNs,
        method: req.method!,
        path: q < 0 ? url : url.slice(0, q),
        ip: ip(req.socket.remoteAddress ?? '', Array.isArray(xff) ? xff.join(',') : xff),
        headers: req.headers,
        query: q < 0 ? {} : parseQuery(url.slice(q + 1)),
        body: undefined,
        bodyKind: 'none',
      },
      s,
    );
    const answered = runCall(call, s);
    if (answered instanceof Promise) answered.then((a) => send(res, requestId, a, s), failed);
    else send(res, requestId, answered, s);
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
    if (!isLean(req)) return false;
    answer(req, res, s, ip);
    return true;
  };
}
