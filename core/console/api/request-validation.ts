// One source of request shapes: every console and admin route's JSON body and declared query parameters are
// checked with Ajv against the very schemas /openapi.json publishes (CONSOLE_ENDPOINTS), before the handler
// runs. A refusal is 400 INVALID_INPUT naming the field, worded as the console always worded it; a field schema
// may carry `x-error` (one message, or one per keyword) where a route says something more specific. Handlers
// keep only what a schema cannot say (a real calendar date, a password with letters and digits, an amount with
// at most 6 decimals).

import type { ValidateFunction } from 'ajv';
import type { Context, Next } from 'koa';
import { hasBody, invalid, makeAjv, messageOf, queryValues } from '../routes/input-checks.js';
import { LEGACY_ENDPOINTS as CONSOLE_ENDPOINTS, type ConsoleEndpoint } from './console-endpoints.js';

type Schema = Record<string, unknown>;

interface RouteValidators {
  body?: ValidateFunction;
  query?: ValidateFunction;
  queryNames: string[];
}

function querySchema(e: ConsoleEndpoint): Schema | undefined {
  const typed = (e.query ?? []).filter((q) => q.schema);
  if (typed.length === 0) return undefined;
  return { type: 'object', properties: Object.fromEntries(typed.map((q) => [q.name, q.schema])) };
}

function compileAll(): Map<string, RouteValidators> {
  const bodies = makeAjv(false);
  const queries = makeAjv(true);
  const out = new Map<string, RouteValidators>();
  for (const e of CONSOLE_ENDPOINTS) {
    const q = querySchema(e);
    out.set(`${e.method} ${e.path}`, {
      ...(e.body ? { body: bodies.compile(e.body) } : {}),
      ...(q ? { query: queries.compile(q) } : {}),
      queryNames: Object.keys((q?.properties as Schema | undefined) ?? {}),
    });
  }
  return out;
}

let compiled: Map<string, RouteValidators> | undefined;

/** Middleware run in front of every console route (core/console/api/console-guard.ts). */
export async function validateRequest(ctx: Context, next: Next): Promise<void> {
  compiled ??= compileAll();
  const route = compiled.get(
    `${ctx.method === 'HEAD' ? 'GET' : ctx.method} ${String((ctx as { _matchedRoute?: unknown })._matchedRoute)}`,
  );
  if (route?.query) {
    const values = queryValues(ctx, route.queryNames);
    if (!route.query(values)) throw invalid(messageOf((route.query.errors ?? [])[0]));
  }
  const raw = (ctx.request as { body?: unknown }).body;
  // A JSON body or none (read as {}); another content type is refused by bodyOf (415) with its own message.
  if (route?.body && (!hasBody(ctx) || ctx.is('application/json', '+json'))) {
    const body = raw === undefined || raw === null ? {} : raw;
    if (!route.body(body)) throw invalid(messageOf((route.body.errors ?? [])[0]));
    ctx.state.bodyValidated = true;
  }
  await next();
}
