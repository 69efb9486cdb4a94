// The second factor's own budget per account, over all addresses. Whoever reaches the 2FA step knows the
// password, and the login throttle (login-throttle.ts) bounds guesses per address: with many addresses, TOTP
// codes (three valid at a time) could still be guessed at thousands a day. After TWO_FACTOR_FREE_FAILURES wrong
// codes for one account, every address waits, 15 minutes doubling up to a day; the count lives for a day after
// the last failure and a correct code clears it. The owner is mailed when the lock starts (login-routes).
import { type Kysely, sql } from 'kysely';
import type { Database } from '../store/schema.js';

export const TWO_FACTOR_FREE_FAILURES = 10;
export const TWO_FACTOR_WINDOW_MS = 24 * 3600 * 1000;
const BASE_LOCK_S = 15 * 60;
export const TWO_FACTOR_MAX_LOCK_S = 24 * 3600;

const scopeOf = (userId: number): string => `2fa:acct:${userId}`;

export function twoFactorLockSeconds(failures: number): number {
  if (failures < TWO_FACTOR_FREE_FAILURES) return 0;
  return Math.min(TWO_FACTOR_MAX_LOCK_S, BASE_LOCK_S * 2 ** Math.min(20, failures - TWO_FACTOR_FREE_FAILURES));
}

/** Seconds every address must wait before trying a code for this account; 0 when it may try. */
export async function twoFactorWait(db: Kysely<Database>, userId: number, now = Date.now()): Promise<number> {
  const row = await db
    .selectFrom('login_attempts')
    .select(['failures', 'last_at'])
    .where('scope', '=', scopeOf(userId))
    .executeTakeFirst();
  if (!row || Number(row.last_at) < now - TWO_FACTOR_WINDOW_MS) return 0;
  const until = Number(row.last_at) + twoFactorLockSeconds(Number(row.failures)) * 1000;
  return until > now ? Math.ceil((until - now) / 1000) : 0;
}

/** Counts a wrong code; returns the account's failures in the window (this one included). */
export async function recordTwoFactorFailure(db: Kysely<Database>, userId: number, now = Date.now()): Promise<number> {
  const row = await db
    .insertInto('login_attempts')
    .values({ scope: scopeOf(userId), failures: 1, last_at: now })
    .onConflict((oc) =>
      oc.column('scope').doUpdateSet({
        failures: sql<number>`case when login_attempts.last_at < ${now - TWO_FACTOR_WINDOW_MS} then 1 else login_attempts.failures + 1 end`,
        last_at: now,
      }),
    )
    .returning('failures')
    .executeTakeFirstOrThrow();
  return Number(row.failures);
}

export async function clearTwoFactorFailures(db: Kysely<Database>, userId: number): Promise<void> {
  await db.deleteFrom('login_attempts').where('scope', '=', scopeOf(userId)).execute();
}
