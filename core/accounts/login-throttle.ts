// Slows down password guessing per email (known or not, so the answer reveals nothing): after FREE_FAILURES
// failures within WINDOW_MS, each further attempt must wait a lockout that doubles with every failure, up to
// MAX_LOCK_S. Kept in the database so every gateway process sees the same count; a success clears it.
import { sql, type Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import { normaliseEmail } from './users.js';

export const FREE_FAILURES = 5;
export const WINDOW_MS = 15 * 60 * 1000;
const BASE_LOCK_S = 30;
const MAX_LOCK_S = 15 * 60;

/** Lockout after `failures` failures, in seconds (0 below the threshold). */
export function lockSeconds(failures: number): number {
  if (failures < FREE_FAILURES) return 0;
  return Math.min(MAX_LOCK_S, BASE_LOCK_S * 2 ** (failures - FREE_FAILURES));
}

/** Seconds the caller must still wait before trying this email again; 0 when an attempt is allowed. */
export async function loginRetryAfter(db: Kysely<Database>, email: string, now = Date.now()): Promise<number> {
  const row = await db.selectFrom('login_failures').selectAll().where('email', '=', normaliseEmail(email)).executeTakeFirst();
  if (!row) return 0;
  const lastAt = Number(row.last_at);
  const until = lastAt + lockSeconds(row.failures) * 1000;
  return until > now ? Math.ceil((until - now) / 1000) : 0;
}

export async function recordLoginFailure(db: Kysely<Database>, email: string, now = Date.now()): Promise<void> {
  const key = normaliseEmail(email);
  // A failure long after the previous one starts a new count; otherwise one atomic increment.
  await db
    .insertInto('login_failures')
    .values({ email: key, failures: 1, last_at: now })
    .onConflict((oc) =>
      oc.column('email').doUpdateSet({
        failures: sql<number>`case when login_failures.last_at < ${now - WINDOW_MS} then 1 else login_failures.failures + 1 end`,
        last_at: now,
      }),
    )
    .execute();
}

export async function clearLoginFailures(db: Kysely<Database>, email: string): Promise<void> {
  await db.deleteFrom('login_failures').where('email', '=', normaliseEmail(email)).execute();
}
