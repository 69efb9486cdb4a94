// The console's request checks: one Ajv setup for bodies (as sent) and queries (strings coerced to the declared
// types), the console's wording of the first failure (400 INVALID_INPUT naming the field; a field schema may
// carry `x-error`, one message or one per keyword), and the JSON-only rule for bodies.

import { Ajv, type ErrorObject } from 'ajv';
import type { Context } from 'koa';
import { DETAILS } from '../../http/error-details.js';
import { ApiError, type Detail, type Localized } from '../../http/errors.js';
import { MAX_TOKEN } from '../../kernel/money.js';

type Schema = Record<string, unknown>;

/** coerce: query strings become the declared integers and booleans. */
export function makeAjv(coerce: boolean): Ajv {
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
  ajv.addKeyword({ keyword: 'x-not-found' });
  // A rule no keyword states, published in the operation's description (core/console/openapi/console-operations.ts).
  ajv.addKeyword({ keyword: 'x-rule' });
  return ajv;
}

export function invalid(message: Detail): ApiError {
  return new ApiError('INVALID_INPUT', message);
}

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
  // Never Ajv's own words ("must be >= 1"): a sentence naming the field, in both languages.
  return DETAILS.fieldInvalid(name);
}

/** The named query parameters: first value of each, empty meaning absent. */
export function queryValues(ctx: Context, names: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const n of names) {
    const v = ctx.query[n];
    const s = Array.isArray(v) ? v[0] : v;
    if (s !== undefined && s !== '') out[n] = s;
  }
  return out;
}

/**
 * Ajv's coercion reads '0x10', '1e2', ' 5', '+5' and '5.0' as integers; the console's integer query values are
 * decimal digits only, anything else is refused naming the field's range (as Ajv refuses 'abc').
 */
export function refuseLooseIntegers(values: Record<string, unknown>, schema: unknown): void {
  const props = ((schema as { properties?: Record<string, Schema> } | undefined)?.properties ?? {}) as Record<
    string,
    Schema
  >;
  for (const [name, v] of Object.entries(values)) {
    const field = props[name];
    if (field && typesOf(field).includes('integer') && !/^-?\d+$/.test(String(v)))
      throw invalid(DETAILS.intRange(name, String(field.minimum ?? -MAX), String(field.maximum ?? MAX)));
  }
}

/** The request carries a body (length or chunked). */
export function hasBody(ctx: Context): boolean {
  return Boolean(ctx.request.length) || ctx.req.headers['transfer-encoding'] !== undefined;
}

/**
 * The console takes JSON only. A body of another type (text/plain, a form, none declared) was not parsed, and
 * reading it as {} would silently drop every field (a key created without its limits): refuse it.
 */
export function requireJsonBody(ctx: Context): void {
  if (hasBody(ctx) && !ctx.is('application/json', '+json')) {
    throw new ApiError(
      'UNSUPPORTED_MEDIA_TYPE',
      DETAILS.consoleJsonOnly((ctx.get('content-type') || 'none').slice(0, 60)),
    );
  }
}
