// Console bearer tokens: `ut_` + 256 random bits, only the SHA-256 stored, expiring, revocable at once.
// Every console request looks its token up in the database, so a logout or a disabled account counts immediately.
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import { newUserToken, sha256Hex } from './secrets.js';
import type { User } from './users.js';

export interface IssuedToken {
  token: string;
  expiresAt: number;
}

export type TokenCheck =
  | { ok: true; user: User; tokenHash: string }
  | { ok: false; reason: 'malformed' | 'unknown' | 'expired' | 'revoked' };

const TOKEN_SHAPE = /^ut_[A-Za-z0-9_-]{43}$/;

export async function issueUserToken(
  db: Kysely<Database>,
  userId: number,
  ttlHours: number,
  now = Date.now(),
): Promise<IssuedToken> {
  const token = newUserToken();
  const expiresAt = now + ttlHours * 3600 * 1000;
  await db
    .insertInto('user_tokens')
    .values({ user_id: userId, token_hash: sha256Hex(token), created_at: now, expires_at: expiresAt, revoked_at: null })
    .execute();
  return { token, expiresAt };
}

export async function checkUserToken(db: Kysely<Database>, token: string, now = Date.now()): Promise<TokenCheck> {
  if (!TOKEN_SHAPE.test(token)) return { ok: false, reason: 'malformed' };
  const tokenHash = sha256Hex(token);
  const row = await db
    .selectFrom('user_tokens')
    .innerJoin('users', 'users.id', 'user_tokens.user_id')
    .selectAll('users')
    .select(['user_tokens.expires_at as token_expires_at', 'user_tokens.revoked_at as token_revoked_at'])
    .where('user_tokens.token_hash', '=', tokenHash)
    .executeTakeFirst();
  if (!row) return { ok: false, reason: 'unknown' };
  if (row.token_revoked_at !== null) return { ok: false, reason: 'revoked' };
  if (Number(row.token_expires_at) <= now) return { ok: false, reason: 'expired' };
  const { token_expires_at: _e, token_revoked_at: _r, ...user } = row;
  return { ok: true, user: { ...user, id: Number(user.id) }, tokenHash };
}

export async function revokeUserToken(db: Kysely<Database>, tokenHash: string, now = Date.now()): Promise<void> {
  await db
    .updateTable('user_tokens')
    .set({ revoked_at: now })
    .where('token_hash', '=', tokenHash)
    .where('revoked_at', 'is', null)
    .execute();
}

/** On disable: every session of the user ends, not only the API keys. */
export async function revokeAllUserTokens(db: Kysely<Database>, userId: number, now = Date.now()): Promise<void> {
  await db
    .updateTable('user_tokens')
    .set({ revoked_at: now })
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .execute();
}
