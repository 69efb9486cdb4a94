// Single-use account tokens: password reset links, email verification links and 2FA login challenges.
// `<prefix>_` + 256 random bits; only the SHA-256 is stored, so a database leak yields no usable link.
// Consuming is one conditional UPDATE: two requests racing with the same token cannot both succeed.
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import { sha256Hex } from './secrets.js';

export type TokenPurpose = 'reset' | 'verify' | 'twofactor';

const PREFIX: Record<TokenPurpose, string> = { reset: 'rt', verify: 'vt', twofactor: 'tf' };

/** Lifetimes: a reset link 30 minutes, a verification link 2 days, a 2FA challenge 5 minutes. */
export const TOKEN_TTL_MS: Record<TokenPurpose, number> = {
  reset: 30 * 60_000,
  verify: 48 * 3600_000,
  twofactor: 5 * 60_000,
};

export function tokenShape(purpose: TokenPurpose): RegExp {
  return new RegExp(`^${PREFIX[purpose]}_[A-Za-z0-9_-]{43}$`);
}

export async function issueAccountToken(
  db: Kysely<Database>,
  userId: number,
  purpose: TokenPurpose,
  now = Date.now(),
): Promise<{ token: string; expiresAt: number }> {
  const token = `${PREFIX[purpose]}_${randomBytes(32).toString('base64url')}`;
  const expiresAt = now + TOKEN_TTL_MS[purpose];
  await db
    .insertInto('account_tokens')
    .values({
      token_hash: sha256Hex(token),
      user_id: userId,
      purpose,
      created_at: now,
      expires_at: expiresAt,
      used_at: null,
    })
    .execute();
  return { token, expiresAt };
}

/** The user a live, unused token of this purpose belongs to, without using it up (2FA challenges allow retries). */
export async function peekAccountToken(
  db: Kysely<Database>,
  token: string,
  purpose: TokenPurpose,
  now = Date.now(),
): Promise<number | null> {
  if (!tokenShape(purpose).test(token)) return null;
  const row = await db
    .selectFrom('account_tokens')
    .select('user_id')
    .where('token_hash', '=', sha256Hex(token))
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return row ? Number(row.user_id) : null;
}

/** Uses the token up and answers its user, or null when it is unknown, of another purpose, expired or used. */
export async function consumeAccountToken(
  db: Kysely<Database>,
  token: string,
  purpose: TokenPurpose,
  now = Date.now(),
): Promise<number | null> {
  const userId = await peekAccountToken(db, token, purpose, now);
  if (userId === null) return null;
  const res = await db
    .updateTable('account_tokens')
    .set({ used_at: now })
    .where('token_hash', '=', sha256Hex(token))
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1 ? userId : null;
}

/** Ends every outstanding token of a purpose (a new password voids older reset links). */
export async function voidAccountTokens(
  db: Kysely<Database>,
  userId: number,
  purpose: TokenPurpose,
  now = Date.now(),
): Promise<void> {
  await db
    .updateTable('account_tokens')
    .set({ used_at: now })
    .where('user_id', '=', userId)
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .execute();
}

/** Expired or used tokens older than a day serve nobody. */
export async function pruneAccountTokens(db: Kysely<Database>, now = Date.now()): Promise<void> {
  await db
    .deleteFrom('account_tokens')
    .where('expires_at', '<', now - 24 * 3600_000)
    .execute();
}
