// The refused /api calls counted per minute (core/store/refused-log.ts), read back for the same pages that read
// the call log: they add to a day's and an operation's calls (as failures, never charged), so usage, admin stats
// and operation health still show them although they have no call-log row each.
import { type Kysely, sql } from 'kysely';
import type { Database } from '../store/schema.js';

const DAY_MS = 24 * 3600 * 1000;
const CHINA_OFFSET_MS = 8 * 3600 * 1000;
const MINUTE_MS = 60_000;

/** Integer day number in China time (literal integers: see usage.ts chinaDayNumber). */
const chinaDay = sql<number>`(refused_requests.minute + ${sql.lit(CHINA_OFFSET_MS)}) / ${sql.lit(DAY_MS)}`;

/** The minute a window starting at `since` begins in: its refusals counted before `since` are in that row too. */
const firstMinute = (since: number): number => since - (since % MINUTE_MS);

export interface RefusedDayRow {
  dayNumber: number;
  operation: string | null;
  calls: number;
}

/** Refused /api calls per China day and operation: one user's or key's (console usage) or everyone's (admin). */
export async function refusedByDayAndOperation(
  db: Kysely<Database>,
  since: number,
  userId?: number,
  keyId?: number,
): Promise<RefusedDayRow[]> {
  let q = db
    .selectFrom('refused_requests')
    .select([chinaDay.as('day'), 'target', (eb) => eb.fn.sum<number>('count').as('calls')])
    .where('kind', '=', 'api')
    .where('minute', '>=', firstMinute(since));
  if (userId !== undefined) q = q.where('user_id', '=', userId);
  if (keyId !== undefined) q = q.where('key_id', '=', keyId);
  const rows = await q.groupBy([chinaDay, 'target']).execute();
  return rows.map((r) => ({ dayNumber: Number(r.day), operation: r.target || null, calls: Number(r.calls) }));
}

/** Refused /api calls per operation since `since` (calls refused before an operation was known are left out). */
export async function refusedByOperation(db: Kysely<Database>, since: number): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('refused_requests')
    .select(['target', (eb) => eb.fn.sum<number>('count').as('calls')])
    .where('kind', '=', 'api')
    .where('minute', '>=', firstMinute(since))
    .where('target', '!=', '')
    .groupBy('target')
    .execute();
  return new Map(rows.map((r) => [r.target, Number(r.calls)]));
}
