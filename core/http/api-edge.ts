// The edge of /api, written once for both doors (the lean entry, core/pipeline/lean-entry.ts, and the Koa route):
// the request id, the security headers, the client IP, the query, the envelope of a failure outside a stage and
// the writing of an answer. A door only adapts its own request to these.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Context } from 'koa';
import { newRequestId } from '../accounts/secrets.js';
import type { Logger } from '../kernel/logger.js';
import { atTurnEnd } from '../kernel/turn-end.js';
import { callerLocale, failureBody } from './envelope.js';
import { type Denial, type Detail, deny, type ErrorCode } from './errors.js';

/** On every answer of the gateway, Koa's and the lean entry's. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

/** The security headers flat, as writeHead takes them (built once). */
export const EDGE_HEADERS: readonly string[] = Object.entries(SECURITY_HEADERS).flat();

export const JSON_TYPE = 'application/json; charset=utf-8';

/** The request id of a new request (also its X-Request-Id): one source for both doors. */
export function edgeRequestId(): string {
  return newRequestId();
}

/** The client's IP from Node's request, by the resolver compiled at start (http/client-ip.ts). */
export function requestIp(
  req: IncomingMessage,
  resolve: (remoteAddress: string, forwardedFor: string | undefined) => string,
): string {
  const xff = req.headers['x-forwarded-for'];
  return resolve(req.socket.remoteAddress ?? '', Array.isArray(xff) ? xff.join(',') : xff);
}

/**
 * The query as Koa's ctx.query reads it (koa/lib/search-params.js: URLSearchParams, a repeated name becomes an
 * array). Without '%' or '+' URLSearchParams only splits on '&' and the first '=', so such a query (a phone number,
 * a tracking number, a key) is split here directly; anything encoded goes through URLSearchParams itself, so the
 * decoding is the one Koa does. The object has no prototype: '__proto__' is a plain name.
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

/** The envelope of a request that failed outside the stages (a thrown error, a fault), in the caller's language. */
export function failureText(
  code: ErrorCode,
  detail: Detail | undefined,
  requestId: string,
  acceptLanguage: string | undefined,
): string {
  return JSON.stringify(failureBody(deny(code, detail), requestId, undefined, callerLocale(acceptLanguage)));
}

/**
 * What an /api call answers: the envelope and the headers that belong to this call (not the edge's own), as one
 * flat list name, value, name, value... — the form Node's writeHead takes without building an object per answer.
 */
export interface ApiAnswer {
  status: number;
  headers: string[];
  body: string;
  /**
   * The refusal behind a failed answer, with the plugin's own detail: the body carries only what the caller may read
   * in its language, while a canary classifies the failure from the whole detail (core/health/canary-runner.ts).
   */
  denial?: Denial;
}

/** The 500 of a door whose request failed outside runCall. */
export function internalFailure(requestId: string, acceptLanguage: string | undefined): ApiAnswer {
  return { status: 500, headers: [], body: failureText('INTERNAL', undefined, requestId, acceptLanguage) };
}

/**
 * The one writer of /api answers: the edge's headers, the request id, the call's headers, type and length, then the
 * body, at the end of the turn with the other answers of it (kernel/turn-end.ts: one wake-up of the reader).
 */
export function sendAnswer(res: ServerResponse, requestId: string, answer: ApiAnswer, logger: Logger): void {
  atTurnEnd(() => {
    try {
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
    } catch (err) {
      logger.error('answer could not be written', { request_id: requestId, reason: (err as Error).message });
      res.destroy();
    }
  });
}

/**
 * The Koa door's side of the writer: Koa steps aside (ctx.respond false) and the answer goes out as the lean door's
 * does. The status is set too, for what reads it afterwards.
 */
export function answerOnKoa(ctx: Context, answer: ApiAnswer, logger: Logger): void {
  ctx.respond = false;
  ctx.status = answer.status;
  sendAnswer(ctx.res, ctx.state.requestId as string, answer, logger);
}
