// Setting a new password, from any path (change, reset link, admin, CLI): the hash is replaced, every session
// except the one that asked ends, and outstanding reset links die with the old password.
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import { voidAccountTokens } from './account-tokens.js';

/** Returns how many other sessions were signed out. */
export async function setPassword(
  db: Kysely<Database>,
  userId: number,
  passwordHash: string,
  keepTokenHash: string | null = null,
  now = Date.now(),
): Promise<number> {
  return db.transaction().execute(async (tx) => {
    await tx.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', userId).execute();
    let q = tx
      .updateTable('user_tokens')
      .set({ revoked_at: now })
      .where('user_id', '=', userId)
      .where('revoked_at', 'is', null)
      .where('expires_at', '>', now);
    if (keepTokenHash) q = q.where('token_hash', '!=', keepTokenHash);
    const res = await q.executeTakeFirst();
    await voidAccountTokens(tx, userId, 'reset', now);
    return Number(res.numUpdatedRows);
  });
}
