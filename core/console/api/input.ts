// Console request helpers: converting a body or query value the route's schemas (core/console/contract/, checked
// by core/console/routes/mount-routes.ts) have already checked, and the checks a schema cannot make. Every
// refusal is 400 INVALID_INPUT naming the field.
import type { Context } from 'koa';
import { DETAILS } from '../../http/error-details.js';
import { ApiError } from '../../http/errors.js';
import { MAX_TOKEN, toMicro } from '../../kernel/money.js';
import { invalid } from '../routes/input-checks.js';

export { invalid } from '../routes/input-checks.js';

export type Body = Record<string, unknown>;

/** A TOKEN amount (JSON number or decimal string, at most 6 decimals) as micro-TOKEN. */
export function reqTokens(b: Body, name: string): number {
  const v = b[name];
  if (typeof v !== 'number' && typeof v !== 'string') throw invalid(DETAILS.tokenAmount(name));
  try {
    return toMicro(v);
  } catch {
    throw invalid(DETAILS.tokenRange(name, MAX_TOKEN));
  }
}

/** An amount in an order's currency (a number or decimal string, above 0, at most 2 decimals) in minor units. */
export function minorOf(v: unknown, name: string): number {
  if (typeof v !== 'number' && typeof v !== 'string') throw invalid(`'${name}' must be a number such as 10 or 9.99.`);
  const m = /^(\d{1,12})(?:\.(\d{1,2}))?$/.exec(String(v).trim());
  const minor = m ? Number(m[1]) * 100 + Number((m[2] ?? '').padEnd(2, '0')) : 0;
  if (minor <= 0)
    throw invalid(`'${name}' must be a positive amount with at most 2 decimals, in the order's currency.`);
  return minor;
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

/** ISO 8601 date or date-time -> epoch ms. A bare date means its start in UTC. */
export function parseIsoDate(v: unknown, name: string): number {
  if (typeof v !== 'string' || !ISO_DATE.test(v)) throw invalid(DETAILS.isoDate(name));
  // Date.parse rolls 2030-02-31 over into March: check the calendar date itself.
  const [y, m, d] = v.slice(0, 10).split('-').map(Number);
  const day = new Date(Date.UTC(y, m - 1, d));
  const ms = Date.parse(v);
  if (Number.isNaN(ms) || day.getUTCMonth() !== m - 1 || day.getUTCDate() !== d)
    throw invalid(DETAILS.notRealDate(name, v));
  return ms;
}

/** Positive integer id from a path segment. */
export function idParam(value: string | undefined, what: string): number {
  if (!value || !/^[1-9]\d{0,15}$/.test(value))
    throw new ApiError('RESOURCE_NOT_FOUND', DETAILS.noSuchId(what, String(value).slice(0, 40)));
  return Number(value);
}

/** One query-string value (the first if repeated), or undefined when absent or empty. */
export function queryOf(ctx: Context, name: string): string | undefined {
  const v = ctx.query[name];
  const s = Array.isArray(v) ? v[0] : v;
  return s === undefined || s === '' ? undefined : s;
}

/** A time bound from the query (its schema checked the form): ISO date/date-time or epoch milliseconds. */
export function timeOf(v: string | undefined, name: string): number | undefined {
  if (v === undefined) return undefined;
  if (/^\d{10,15}$/.test(v)) return Number(v);
  return parseIsoDate(v, name);
}
