// Load-time check of every JSONata expression of an operation's upstreams (and of `charge_when`): each is compiled
// here with the same library the http plugin bundles, so a typo fails `tollgate config check` and the load, naming
// the expression's place in operations.yaml and the column, instead of failing customers' calls.
import jsonata from 'jsonata';
import type { RawUpstream } from './upstream-config.js';
import { UpstreamConfigError } from './upstream-config.js';

/**
 * The {{ expression }} parts of a template. plugins/http/template.ts splits templates the same way at run time (a
 * plugin cannot import core): keep the two in step.
 */
export function templateParts(text: string): Array<{ literal: string } | { expr: string }> {
  const parts: Array<{ literal: string } | { expr: string }> = [];
  let rest = text;
  for (;;) {
    const open = rest.indexOf('{{');
    if (open < 0) break;
    const close = rest.indexOf('}}', open + 2);
    if (close < 0) throw new Error('"{{" without a closing "}}"');
    if (open > 0) parts.push({ literal: rest.slice(0, open) });
    parts.push({ expr: rest.slice(open + 2, close).trim() });
    rest = rest.slice(close + 2);
  }
  if (rest) parts.push({ literal: rest });
  return parts;
}

/** Compiles `source`; a failure names `pointer` and the column JSONata reports. */
export function checkExpression(source: string, pointer: string): void {
  try {
    jsonata(source);
  } catch (err) {
    const e = err as { message?: string; position?: number; token?: string };
    const col = typeof e.position === 'number' ? ` at column ${e.position}` : '';
    throw new UpstreamConfigError(pointer, `JSONata error${col}: ${e.message ?? String(err)}`);
  }
}

function checkTemplate(text: string, pointer: string): void {
  let parts: ReturnType<typeof templateParts>;
  try {
    parts = templateParts(text);
  } catch (err) {
    throw new UpstreamConfigError(pointer, (err as Error).message);
  }
  for (const p of parts) {
    if ('expr' in p) {
      if (!p.expr) throw new UpstreamConfigError(pointer, 'empty {{ }}');
      checkExpression(p.expr, pointer);
    }
  }
}

function checkJson(v: unknown, pointer: string): void {
  if (typeof v === 'string') checkTemplate(v, pointer);
  else if (Array.isArray(v)) for (const [i, x] of v.entries()) checkJson(x, `${pointer}/${i}`);
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) checkJson(x, `${pointer}/${k}`);
}

/** Every expression and template of one upstream; throws UpstreamConfigError at the first bad one. */
export function checkUpstreamExpressions(u: RawUpstream, at: string): void {
  const r = u.request;
  checkTemplate(r.url, `${at}/request/url`);
  for (const [name, src] of Object.entries(r.let ?? {})) checkExpression(src, `${at}/request/let/${name}`);
  for (const part of ['query', 'headers', 'form'] as const) {
    for (const [name, t] of Object.entries(r[part] ?? {})) checkTemplate(t, `${at}/request/${part}/${name}`);
  }
  if (r.json !== undefined) checkJson(r.json, `${at}/request/json`);
  if (u.success) checkExpression(u.success, `${at}/success`);
  checkExpression(u.result, `${at}/result`);
  if (u.cache_key) checkExpression(u.cache_key, `${at}/cache_key`);
  for (const [i, e] of (u.errors ?? []).entries()) checkExpression(e.when, `${at}/errors/${i}/when`);
}
