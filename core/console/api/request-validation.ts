// One source of request shapes: every console and admin route's JSON body and declared query parameters are
// checked with Ajv against the very schemas /openapi.json publishes (CONSOLE_ENDPOINTS), before the handler
// runs. A refusal is 400 INVALID_INPUT naming the field, worded as the console always worded it; a field schema
// may carry `x-error` (one message, or one per keyword) where a route says something more specific. Handlers
// keep only what a schema cannot say (a real calendar date, a password with letters and digits, an amount with
// at most 6 decimals).

import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { Context, Next } from 'koa';
import { DETAILS } from '../../http/error-details.js';
import type { Detail, Localized } from '../../http/errors.js';
import { MAX_TOKEN } from '../../kernel/money.js';
import { CONSOLE_ENDPOINTS, type ConsoleEndpoint } from './console-endpoints.js';
import { invalid } from './input.js';

type Schema = Record<string, unknown>;

interface RouteValidators {
  body?: ValidateFunction;
  query?: ValidateFunction;
  queryNames: string[];
}

function makeAjv(coerce: boolean): Ajv {
  // Formats (email, date-time) stay annotations: the handlers check them with their own, clearer messages.
  const ajv = new Ajv({
    allErrors: false,
    strict: true,
    strictRequired: false,
    allowUnionTypes: true,
    validateFormats: false,
    verbose: true,
    coerceTypes: coerce,
  });
  ajv.addKeyword({ keyword: 'x-error' });
  // A rule no keyword states, published in the operation's description (core/console/openapi/console-operations.ts).
  ajv.addKeyword({ keyword: 'x-rule' });
  return ajv;
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

const MAX = Number.MAX_SAFE_INTEGER;
const typesOf = (s: Schema | undefined): unknown[] => (Array.isArray(s?.type) ? (s?.type as unknown[]) : [s?.type]);

/** The schemas' own `x-error` texts that have a Chinese twin (the rest answer Chinese callers with the code's text). */
const KNOWN: Localized[] = [
  DETAILS.weakPassword('password must be at least 8 characters'),
  DETAILS.weakPassword('password must contain letters and digits'),
  DETAILS.emailInvalid('at most 254 characters'),
  DETAILS.locale(),
];
/** A schema's `x-error` text ({field} stands for the field's name), or '@isoDate' / '@tokenRange': that detail. */
function known(en: string, field: string): Detail {
  if (en === '@isoDate') return DETAILS.isoDate(field);
  if (en === '@tokenRange') return DETAILS.tokenRange(field, MAX_TOKEN);
  const text = en.replaceAll('{field}', field);
  return KNOWN.find((k) => k.en === text) ?? text;
}

/** The console's wording for the first failure. */
export function messageOf(e: ErrorObject): Detail {
  const p = e.params as Record<string, unknown>;
  const parent = (e.parentSchema ?? {}) as Schema;
  const path = e.instancePath.split('/').filter(Boolean).join('.');
  const missing = e.keyword === 'required' ? String(p.missingProperty) : null;
  const name = missing ? (path ? `${path}.${missing}` : missing) : path;
  const field = (
    missing ? ((parent.properties as Record<string, Schema> | undefined)?.[missing] ?? {}) : parent
  ) as Schema;
  const custom = field['x-error'];
  if (typeof custom === 'string') return known(custom, name);
  if (custom && typeof custom === 'object' && typeof (custom as Record<string, unknown>)[e.keyword] === 'string')
    return known((custom as Record<string, string>)[e.keyword], name);
  const types = typesOf(field);
  if (e.keyword === 'additionalProperties') {
    const allowed = Object.keys((parent.properties as Schema | undefined) ?? {});
    return DETAILS.unknownField(`${path ? `${path}.` : ''}${String(p.additionalProperty)}`, allowed.join(', '));
  }
  if (!path && !missing && e.keyword === 'type') return DETAILS.bodyNotObject();
  if (e.keyword === 'enum') return DETAILS.oneOf(name, (field.enum as unknown[]).filter((v) => v !== null).join(', '));
  if (types.includes('integer'))
    return DETAILS.intRange(name, String(field.minimum ?? -MAX), String(field.maximum ?? MAX));
  if (types.includes('boolean') && types.length <= 2) return DETAILS.boolean(name);
  if (types.includes('string') && e.keyword === 'maxLength') return DETAILS.tooLong(name, String(field.maxLength));
  if (types.includes('string') && (missing || ['type', 'minLength', 'pattern'].includes(e.keyword)))
    return DETAILS.requiredString(name);
  if (missing) return DETAILS.required(name);
  // Ajv's own words are English: the Chinese answer names the field only.
  return { zh: DETAILS.fieldInvalid(name).zh, en: `'${name}' ${e.message ?? 'is invalid'}.` };
}

/** The declared query parameters: first value of each, empty meaning absent (as queryOf reads them). */
function queryValues(ctx: Context, names: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const n of names) {
    const v = ctx.query[n];
    const s = Array.isArray(v) ? v[0] : v;
    if (s !== undefined && s !== '') out[n] = s;
  }
  return out;
}

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
  const hasBody = Boolean(ctx.request.length) || ctx.req.headers['transfer-encoding'] !== undefined;
  if (route?.body && (!hasBody || ctx.is('application/json', '+json'))) {
    const body = raw === undefined || raw === null ? {} : raw;
    if (!route.body(body)) throw invalid(messageOf((route.body.errors ?? [])[0]));
    ctx.state.bodyValidated = true;
  }
  await next();
}
