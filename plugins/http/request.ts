// Builds one upstream request from the compiled templates and the validated input. Values an expression puts
// into the URL are percent-encoded; header values with a line break are refused (header injection); undefined or
// null values leave their query, form or header entry out, so optional inputs need no special casing.
// First synchronously, from the expressions' direct forms (compile.ts `now`): most requests are field paths into
// the input, and then the request is built without a promise or a binding. If any expression needs JSONata, the
// request is built again from the start by the async path, with the helper bindings; the direct forms are pure, so
// evaluating them twice changes nothing.
import { type Compiled, type JsonTemplate, Template } from './compile.js';
import { MISS } from './fast-path.js';

export class RequestError extends Error {}

export interface BuiltRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
}

type Bindings = Record<string, unknown>;

const text = (v: unknown): string =>
  typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v);

/** The template's value: one {{ }} alone keeps its type; otherwise text. `encode` applies to expression output only. */
async function render(t: Template, ctx: unknown, b: Bindings, encode?: (s: string) => string): Promise<unknown> {
  if (t.whole) return t.whole.evaluate(ctx, b);
  let out = '';
  for (const p of t.parts) {
    if (typeof p === 'string') out += p;
    else {
      const v = await p.evaluate(ctx, b);
      if (v === undefined || v === null) continue;
      out += encode ? encode(text(v)) : text(v);
    }
  }
  return out;
}

async function renderPairs(
  list: Array<[string, Template]>,
  ctx: unknown,
  b: Bindings,
): Promise<Array<[string, string]>> {
  const out: Array<[string, string]> = [];
  for (const [name, t] of list) {
    const v = await render(t, ctx, b);
    if (v !== undefined && v !== null) out.push([name, text(v)]);
  }
  return out;
}

async function renderJson(t: JsonTemplate, ctx: unknown, b: Bindings): Promise<unknown> {
  if (t === null || typeof t !== 'object') return t;
  if (Array.isArray(t)) return Promise.all(t.map((x) => renderJson(x, ctx, b)));
  if (t instanceof Template) return render(t, ctx, b);
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(t as Record<string, JsonTemplate>)) {
    const v = await renderJson(x, ctx, b);
    if (v !== undefined) out[k] = v;
  }
  return out;
}

const form = (pairs: Array<[string, string]>): string =>
  pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');

/** Header names lower-cased; a value with a line break refused (header injection). */
function headersOf(pairs: Array<[string, string]>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of pairs) {
    if (/[\r\n\0]/.test(value)) throw new RequestError(`a value for request header ${name} contains a line break`);
    headers[name.toLowerCase()] = value;
  }
  return headers;
}

const withQuery = (url: string, query: Array<[string, string]>): string =>
  query.length ? url + (url.includes('?') ? '&' : '?') + form(query) : url;

/** The direct pass: the same steps as `buildAsync`, each expression by its direct form; MISS once one has none. */
function renderNow(t: Template, ctx: unknown, encode?: (s: string) => string): unknown {
  if (t.whole) return t.whole.now(ctx);
  let out = '';
  for (const p of t.parts) {
    if (typeof p === 'string') out += p;
    else {
      const v = p.now(ctx);
      if (v === MISS) return MISS;
      if (v === undefined || v === null) continue;
      out += encode ? encode(text(v)) : text(v);
    }
  }
  return out;
}

function pairsNow(list: Array<[string, Template]>, ctx: unknown): Array<[string, string]> | typeof MISS {
  const out: Array<[string, string]> = [];
  for (const [name, t] of list) {
    const v = renderNow(t, ctx);
    if (v === MISS) return MISS;
    if (v !== undefined && v !== null) out.push([name, text(v)]);
  }
  return out;
}

function jsonNow(t: JsonTemplate, ctx: unknown): unknown {
  if (t === null || typeof t !== 'object') return t;
  if (Array.isArray(t)) {
    const out: unknown[] = [];
    for (const x of t) {
      const v = jsonNow(x, ctx);
      if (v === MISS) return MISS;
      out.push(v);
    }
    return out;
  }
  if (t instanceof Template) return renderNow(t, ctx);
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(t as Record<string, JsonTemplate>)) {
    const v = jsonNow(x, ctx);
    if (v === MISS) return MISS;
    if (v !== undefined) out[k] = v;
  }
  return out;
}

function buildNow(c: Compiled, input: unknown): BuiltRequest | typeof MISS {
  if (c.lets.length) return MISS; // `let` values are bindings, which only JSONata reads
  const ctx = { input };
  const url = renderNow(c.url, ctx, encodeURIComponent);
  if (url === MISS) return MISS;
  const query = pairsNow(c.query, ctx);
  if (query === MISS) return MISS;
  const headerPairs = pairsNow(c.headers, ctx);
  if (headerPairs === MISS) return MISS;
  const headers = headersOf(headerPairs);
  let body: string | undefined;
  if (c.form) {
    const pairs = pairsNow(c.form, ctx);
    if (pairs === MISS) return MISS;
    body = form(pairs);
    headers['content-type'] ??= 'application/x-www-form-urlencoded';
  } else if (c.json !== undefined) {
    const json = jsonNow(c.json, ctx);
    if (json === MISS) return MISS;
    body = JSON.stringify(json);
    headers['content-type'] ??= 'application/json';
  }
  return { url: withQuery(text(url), query), method: c.method, headers, body };
}

/** `functions` are the helper bindings (functions.ts); `$env` and the `let` values are added here. */
async function buildAsync(c: Compiled, input: unknown, functions: Bindings): Promise<BuiltRequest> {
  const ctx = { input };
  const b: Bindings = { ...functions, env: c.env };
  for (const [name, expr] of c.lets) b[name] = await expr.evaluate(ctx, b);
  const url = text(await render(c.url, ctx, b, encodeURIComponent));
  const query = await renderPairs(c.query, ctx, b);
  const headers = headersOf(await renderPairs(c.headers, ctx, b));
  let body: string | undefined;
  if (c.form) {
    body = form(await renderPairs(c.form, ctx, b));
    headers['content-type'] ??= 'application/x-www-form-urlencoded';
  } else if (c.json !== undefined) {
    body = JSON.stringify(await renderJson(c.json, ctx, b));
    headers['content-type'] ??= 'application/json';
  }
  return { url: withQuery(url, query), method: c.method, headers, body };
}

/**
 * The request, at once when every expression answered directly, else a promise. `functions` makes the helper
 * bindings (functions.ts), called only when JSONata is needed. Throws (or rejects with) RequestError for input that
 * cannot go into the request.
 */
export function buildRequest(
  c: Compiled,
  input: unknown,
  functions: () => Bindings,
): BuiltRequest | Promise<BuiltRequest> {
  const now = buildNow(c, input);
  return now === MISS ? buildAsync(c, input, functions()) : now;
}
