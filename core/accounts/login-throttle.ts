// Login throttling that slows guessing without letting a stranger lock the owner out (OWASP Authentication and
// Credential Stuffing cheat sheets; the "device cookie" idea with the client IP as the device):
//  - per IP + account: after FREE_FAILURES failures, each further attempt from that IP for that account waits a
//    lockout that doubles up to MAX_LOCK_S. An attacker locks only themselves out; the owner elsewhere is unaffected.
//  - per IP over all accounts: password spraying (one password against many emails) from one source is slowed
//    the same way after IP_FREE_FAILURES.
//  - per account over all IPs: a distributed attack (many IPs, few tries each) trips ACCOUNT_FREE_FAILURES. Then
//    only IPs that have logged in to this account successfully before (known-good) may still try; they keep
//    their own per-IP+account budget, so the owner's usual network still gets in.
// Counts live in the database so every gateway process agrees; unknown emails are counted the same as known ones,
// so the answers reveal nothing about which accounts exist.
import { type Kysely, sql } from 'kysely';
import type { Database } from '../store/schema.js';
import { normaliseEmail } from './emails.js';
import { TWO_FACTOR_WINDOW_MS } from './two-factor-throttle.js';

export const FREE_FAILURES = 5;
export const IP_FREE_FAILURES = 20;
export const ACCOUNT_FREE_FAILURES = 50;
export const WINDOW_MS = 15 * 60 * 1000;
const BASE_LOCK_S = 30;
export const MAX_LOCK_S = 15 * 60;
/** How long a successful login keeps an IP known-good for that account. */
export const KNOWN_GOOD_MS = 90 * 24 * 3600 * 1000;

export type ThrottleScope = 'ip+account' | 'ip' | 'account';

export interface LoginVerdict {
  /** Seconds to wait; 0 means the attempt may go ahead. */
  wait: number;
  /** Which rule refused (for the message and the log). */
  scope?: ThrottleScope;
  /** This IP logged in to this account within KNOWN_GOOD_MS: its password check goes ahead of the queue. */
  knownGood: boolean;
}

const scopes = (ip: string, email: string) => {
  const e = normaliseEmail(email);
  return { ipAccount: `ipacct:${ip}|${e}`, ip: `ip:${ip}`, account: `acct:${e}` };
};
const goodScope = (userId: number, ip: string): string => `good:${userId}|${ip}`;

/** Lockout after `failures` failures when `free` are allowed, in seconds (0 below the threshold). */
function lockAfter(failures: number, free: number): number {
  if (failures < free) return 0;
  return Math.min(MAX_LOCK_S, BASE_LOCK_S * 2 ** Math.min(20, failures - free));
}

/** Lockout of the per IP + account rule after `failures` failures, in seconds. */
export function lockSeconds(failures: number): number {
  return lockAfter(failures, FREE_FAILURES);
}

function remaining(row: { failures: number; last_at: number | string } | undefined, free: number, now: number): number {
  if (!row) return 0;
  const lastAt = Number(row.last_at);
  if (lastAt < now - WINDOW_MS - MAX_LOCK_S * 1000) return 0; // stale: the next failure starts a new count
  const until = lastAt + lockAfter(row.failures, free) * 1000;
  return until > now ? Math.ceil((until - now) / 1000) : 0;
}

/**
 * May this IP try a password for this email now? `userId` is the account's id when it exists: only then can the
 * IP be known-good. Looks at three rows in one query.
 */
export async function loginVerdict(
  db: Kysely<Database>,
  ip: string,
  email: string,
  userId: number | undefined,
  now = Date.now(),
): Promise<LoginVerdict> {
  const s = scopes(ip, email);
  const wanted = [s.ipAccount, s.ip, s.account, ...(userId !== undefined ? [goodScope(userId, ip)] : [])];
  const rows = await db.selectFrom('login_attempts').selectAll().where('scope', 'in', wanted).execute();
  const by = new Map(rows.map((r) => [r.scope, r]));
  const good = userId !== undefined ? by.get(goodScope(userId, ip)) : undefined;
  const knownGood = good !== undefined && Number(good.last_at) > now - KNOWN_GOOD_MS;
  const ipAccount = remaining(by.get(s.ipAccount), FREE_FAILURES, now);
  if (ipAccount > 0) return { wait: ipAccount, scope: 'ip+account', knownGood };
  const ipWide = remaining(by.get(s.ip), IP_FREE_FAILURES, now);
  if (ipWide > 0) return { wait: ipWide, scope: 'ip', knownGood };
  if (!knownGood) {
    const account = remaining(by.get(s.account), ACCOUNT_FREE_FAILURES, now);
    if (account > 0) return { wait: account, scope: 'account', knownGood };
  }
  return { wait: 0, knownGood };
}

async function bump(db: Kysely<Database>, scope: string, now: number): Promise<void> {
  // A failure long after the previous one starts a new count; otherwise one atomic increment.
  await db
    .insertInto('login_attempts')
    .values({ scope, failures: 1, last_at: now })
    .onConflict((oc) =>
      oc.column('scope').doUpdateSet({
        failures: sql<number>`case when login_attempts.last_at < ${now - WINDOW_MS} then 1 else login_attempts.failures + 1 end`,
        last_at: now,
      }),
    )
    .execute();
}

export async function recordLoginFailure(
  db: Kysely<Database>,
  ip: string,
  email: string,
  now = Date.now(),
): Promise<void> {
  const s = scopes(ip, email);
  for (const scope of [s.ipAccount, s.ip, s.account]) await bump(db, scope, now);
}

/**
 * After a correct password: this IP's count for the account starts over and the IP becomes known-good. The
 * IP-wide and account-wide counts stay: one valid account must not reset a spraying source's budget.
 */
export async function recordLoginSuccess(
  db: Kysely<Database>,
  ip: string,
  email: string,
  userId: number,
  now = Date.now(),
): Promise<void> {
  await db.deleteFrom('login_attempts').where('scope', '=', scopes(ip, email).ipAccount).execute();
  await db
    .insertInto('login_attempts')
    .values({ scope: goodScope(userId, ip), failures: 0, last_at: now })
    .onConflict((oc) => oc.column('scope').doUpdateSet({ last_at: now }))
    .execute();
}

/**
 * Deletes rows that can no longer matter: failure counts older than the window plus the longest lockout,
 * known-good marks older than KNOWN_GOOD_MS, second-factor counts older than a day. Returns how many went.
 */
export async function pruneLoginAttempts(db: Kysely<Database>, now = Date.now()): Promise<number> {
  const res = await db
    .deleteFrom('login_attempts')
    .where((eb) =>
      eb.or([
        eb.and([
          eb('scope', 'not like', 'good:%'),
          eb('scope', 'not like', '2fa:%'),
          eb('last_at', '<', now - WINDOW_MS - MAX_LOCK_S * 1000),
        ]),
        eb.and([eb('scope', 'like', 'good:%'), eb('last_at', '<', now - KNOWN_GOOD_MS)]),
        // The second factor's account counts (two-factor-throttle.ts) live a day.
        eb.and([eb('scope', 'like', '2fa:%'), eb('last_at', '<', now - TWO_FACTOR_WINDOW_MS)]),
      ]),
    )
    .executeTakeFirst();
  return Number(res.numDeletedRows);
}
