// Wraps every console API handler: a NUL byte anywhere in the query or JSON body is refused as 400 before it
// reaches SQL (PostgreSQL cannot store U+0000 in text and would fail with 500), and a database that cannot be
// reached answers 503 UNAVAILABLE with Retry-After, as /api does, instead of 500.
import type { Context, Next } from 'koa';
import { DETAILS } from '../../http/error-details.js';
import { ApiError } from '../../http/errors.js';
import { isDatabaseUnavailable } from '../../store/database-errors.js';
import { invalid } from './input.js';

const RETRY_AFTER_S = 5;
const MAX_DEPTH = 32;

/** The dotted path of the first string (value or key) holding U+0000, or null. */
export function nulPath(value: unknown, path = '', depth = 0): string | null {
  if (typeof value === 'string') return value.includes('\u0000') ? path || '(value)' : null;
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return null;
  for (const [k, v] of Object.entries(value)) {
    const here = path ? `${path}.${k}` : k;
    if (k.includes('\u0000')) return here;
    const found = nulPath(v, here, depth + 1);
    if (found) return found;
  }
  return null;
}

export async function consoleGuard(ctx: Context, next: Next): Promise<void> {
  const bad = nulPath(ctx.query) ?? nulPath((ctx.request as { body?: unknown }).body);
  if (bad)
    throw invalid(
      `'${bad.replace(/\u0000/g, '\\0').slice(0, 60)}' contains a NUL character (\\u0000), which is not allowed.`,
    );
  try {
    await next();
  } catch (err) {
    if (err instanceof ApiError || !isDatabaseUnavailable(err)) throw err;
    ctx.set('Retry-After', String(RETRY_AFTER_S));
    throw new ApiError('UNAVAILABLE', DETAILS.databaseDown());
  }
}
