// The second factor of a console account: a TOTP code or an unused recovery code.
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import { checkTotp, useRecoveryCode } from './totp.js';
import { securityOf, twoFactorOn } from './user-security.js';

/**
 * A TOTP code (each 30-second step accepted once: the step is claimed with a conditional UPDATE, so two logins
 * racing with one code cannot both pass) or an unused recovery code.
 */
export async function verifySecondFactor(
  db: Kysely<Database>,
  userId: number,
  code: string,
  now = Date.now(),
): Promise<boolean> {
  const sec = await securityOf(db, userId);
  if (!twoFactorOn(sec) || !sec.totp_secret) return false;
  const step = await checkTotp(
    sec.totp_secret,
    code,
    sec.totp_last_step === null ? null : Number(sec.totp_last_step),
    now,
  );
  if (step !== null) {
    const res = await db
      .updateTable('user_security')
      .set({ totp_last_step: step })
      .where('user_id', '=', userId)
      .where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', step)]))
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }
  return useRecoveryCode(db, userId, code, now);
}
