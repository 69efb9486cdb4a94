// TOTP second factor (RFC 6238 via otplib: SHA-1, 6 digits, 30-second steps, what authenticator apps expect)
// and recovery codes. A code is accepted once (the last used time step is stored), within ±30 s of clock drift.
// Recovery codes are 10 random codes shown once; only their SHA-256 is stored and each works once.
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { generateSecret, generateURI, verify } from 'otplib';
import type { Database } from '../store/schema.js';
import { sha256Hex } from './secrets.js';

export const RECOVERY_CODE_COUNT = 10;
const TOTP_SHAPE = /^\d{6}$/;
const RECOVERY_SHAPE = /^[a-z0-9]{5}-?[a-z0-9]{5}$/;

export function newTotpSecret(): string {
  return generateSecret();
}

export function totpUri(secret: string, email: string, issuer = 'Tollgate'): string {
  return generateURI({ issuer, label: email, secret });
}

/** The accepted time step, or null. `afterStep` rejects a code already used (replay). */
export async function checkTotp(
  secret: string,
  code: string,
  afterStep: number | null,
  now = Date.now(),
): Promise<number | null> {
  const token = code.replace(/\s+/g, '');
  if (!TOTP_SHAPE.test(token)) return null;
  try {
    const r = await verify({
      secret,
      token,
      epoch: Math.floor(now / 1000),
      epochTolerance: 30,
      ...(afterStep !== null ? { afterTimeStep: afterStep } : {}),
    });
    // The functional API types HOTP and TOTP results together; a TOTP result carries its time step.
    return r.valid && 'timeStep' in r && typeof r.timeStep === 'number' ? r.timeStep : null;
  } catch {
    return null; // a malformed stored secret or an out-of-range afterTimeStep: no code can match
  }
}

function normaliseRecovery(code: string): string {
  return code.trim().toLowerCase().replace(/-/g, '');
}

export function looksLikeRecoveryCode(code: string): boolean {
  return RECOVERY_SHAPE.test(code.trim().toLowerCase());
}

/** Replaces the user's recovery codes with fresh ones and answers them (the only time they are readable). */
export async function newRecoveryCodes(db: Kysely<Database>, userId: number): Promise<string[]> {
  const alphabet = 'abcdefghjkmnpqrstuvwxyz23456789';
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const bytes = randomBytes(10);
    const raw = Array.from(bytes, (b) => alphabet[b % alphabet.length]).join('');
    return `${raw.slice(0, 5)}-${raw.slice(5)}`;
  });
  await db.transaction().execute(async (tx) => {
    await tx.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
    await tx
      .insertInto('recovery_codes')
      .values(codes.map((c) => ({ user_id: userId, code_hash: sha256Hex(normaliseRecovery(c)), used_at: null })))
      .execute();
  });
  return codes;
}

/** Uses up one recovery code; true when it was the user's and unused. */
export async function useRecoveryCode(
  db: Kysely<Database>,
  userId: number,
  code: string,
  now = Date.now(),
): Promise<boolean> {
  if (!looksLikeRecoveryCode(code)) return false;
  const res = await db
    .updateTable('recovery_codes')
    .set({ used_at: now })
    .where('user_id', '=', userId)
    .where('code_hash', '=', sha256Hex(normaliseRecovery(code)))
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** Turns 2FA off: secret, pending enrolment, replay guard and recovery codes all go. */
export async function disableTwoFactor(db: Kysely<Database>, userId: number): Promise<void> {
  await db.transaction().execute(async (tx) => {
    await tx
      .updateTable('user_security')
      .set({ totp_secret: null, totp_pending_secret: null, totp_enabled_at: null, totp_last_step: null })
      .where('user_id', '=', userId)
      .execute();
    await tx.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
  });
}

export async function recoveryCodesLeft(db: Kysely<Database>, userId: number): Promise<number> {
  const row = await db
    .selectFrom('recovery_codes')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
