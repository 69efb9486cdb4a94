// Named prepared statements for the few fixed statements of a billed call on PostgreSQL (the hold and the capture,
// core/billing/holds.ts, and the billing statements, core/billing/billing-sql.ts). Applied where every query of
// the pool passes (pg-pool-guard.ts). Behind a pooler in transaction mode, PgBouncer needs 1.21 or later with
// max_prepared_statements set (docs/operators.md).
import { createHash } from 'node:crypto';

/** Marks a statement of the billed hot path: see preparedName. */
export const PREPARED = '/* prepared */ ';

const names = new Map<string, string>();

/**
 * A statement whose text starts with PREPARED runs as a named prepared statement: PostgreSQL parses and plans it
 * once per connection instead of on every call (the capture statement's planning alone was ~0.1 ms of the
 * server's CPU per billed call). Only marked texts, a handful of fixed ones, so the names on a connection stay few;
 * the name is the text's hash, so one name never stands for two texts.
 */
export function preparedName(text: string): string | undefined {
  if (!text.startsWith(PREPARED)) return undefined;
  let name = names.get(text);
  if (!name) names.set(text, (name = `tg_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`));
  return name;
}
