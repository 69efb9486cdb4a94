// Per-user security settings (table user_security, one row per user created on first need): the mail
// language, whether the email still awaits verification, and TOTP state.
import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../store/schema.js';
import type { UserSecurityTable } from '../store/schema-account-security.js';

export type UserSecurity = Selectable<UserSecurityTable>;

export async function securityOf(db: Kysely<Database>, userId: number): Promise<UserSecurity> {
  const row = await db.selectFrom('user_security').selectAll().where('user_id', '=', userId).executeTakeFirst();
  return (
    row ?? {
      user_id: userId,
      locale: null,
      email_unverified: 0,
      totp_secret: null,
      totp_pending_secret: null,
      totp_enabled_at: null,
      totp_last_step: null,
    }
  );
}

/** Insert-or-update of some columns (both dialects support ON CONFLICT DO UPDATE). */
export async function updateSecurity(
  db: Kysely<Database>,
  userId: number,
  set: Partial<Omit<UserSecurity, 'user_id'>>,
): Promise<void> {
  await db
    .insertInto('user_security')
    .values({ user_id: userId, ...set })
    .onConflict((oc) => oc.column('user_id').doUpdateSet(set))
    .execute();
}

export function twoFactorOn(sec: UserSecurity): boolean {
  return sec.totp_enabled_at !== null && sec.totp_secret !== null;
}
