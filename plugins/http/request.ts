// Builds one upstream request from the compiled templates and the validated input. Values an expression puts
// into the URL are percent-encoded; header values with a line break are refused (header injection); undefined or
// null values leave their query, form or header entry out, so optional inputs need no special casing.
import { type Compiled, type JsonTemplate, Template } from './compile.js';

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

/** `functions` are the helper bindings (functions.ts); `$env` and the `let` values are added here. */
export async function buildRequest(c: Compiled, input: unknown, functions: Bindings): Promise<BuiltRequest> {
  const ctx = { input };
  const b: Bindings = { ...functions, env: c.env };
  for (const [name, expr] of c.lets) b[name] = await expr.evaluate(ctx, b);
  let url = text(await render(c.url, ctx, b, encodeURIComponent));
  const query = await renderPairs(c.query, ctx, b);
  if (query.length) url += (url.includes('?') ? '&' : '?') + form(query);
  const headers: Record<string, string> = {};
  for (const [name, value] of await renderPairs(c.headers, ctx, b)) {
    if (/[\r\n\0]/.test(value)) throw new RequestError(`a value for request header ${name} contains a line break`);
    headers[name.toLowerCase()] = value;
  }
  let body: string | undefined;
  if (c.form) {
    body = form(await renderPairs(c.form, ctx, b));
    headers['content-type'] ??= 'application/x-www-form-urlencoded';
  } else if (c.json !== undefined) {
    body = JSON.stringify(await renderJson(c.json, ctx, b));
    headers['content-type'] ??= 'application/json';
  }
  return { url, method: c.method, headers, body };
}
