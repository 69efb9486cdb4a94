// Optional TOTP 2FA for console accounts: set up (secret + otpauth URI and its QR code for the authenticator app), confirm with
// a first code (then 10 recovery codes are shown once), regenerate recovery codes, turn off (password and a
// code). Plus the security summary and the mail language under /console/api/me/security.
import type Router from '@koa/router';
import type { Context } from 'koa';
import type { Kysely } from 'kysely';
import QRCode from 'qrcode';
import { parseLocale } from '../../accounts/locale.js';
import {
  checkTotp,
  disableTwoFactor,
  newRecoveryCodes,
  newTotpSecret,
  recoveryCodesLeft,
  totpUri,
  useRecoveryCode,
} from '../../accounts/totp.js';
import { securityOf, twoFactorOn, updateSecurity } from '../../accounts/user-security.js';
import { findUserById } from '../../accounts/users.js';
import { DETAILS } from '../../http/error-details.js';
import { ApiError } from '../../http/errors.js';
import type { Services } from '../../services.js';
import type { Database } from '../../store/schema.js';
import { audit } from './audit.js';
import { requireUser, userOf } from './auth.js';
import { bodyOf, invalid, reqString } from './input.js';
import type { PasswordGuard } from './password-guard.js';
import { iso } from './present.js';

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

export function twoFactorRoutes(router: Router, s: Services, guard: PasswordGuard): void {
  const db = s.store.db;

  /** The password again before a security change: a session left open on a shared computer is not enough. */
  const reauth = async (ctx: Context, password: string): Promise<void> => {
    const user = userOf(ctx);
    const verdict = await guard.throttle(ctx, user.email, user);
    if (!(await guard.checkPassword(ctx, user.email, password, await findUserById(db, user.id), verdict)))
      throw new ApiError('WRONG_PASSWORD');
  };

  /** A wrong code counts as a failed login for this account and address. */
  const secondFactor = async (ctx: Context, code: string): Promise<void> => {
    const user = userOf(ctx);
    await guard.throttle(ctx, user.email, user);
    if (!(await verifySecondFactor(db, user.id, code))) {
      await guard.recordFailure(ctx, user.email);
      throw new ApiError('UNAUTHORIZED', 'Wrong authentication code.');
    }
  };

  router.get('/console/api/me/security', requireUser(s), async (ctx) => {
    const user = userOf(ctx);
    const sec = await securityOf(db, user.id);
    const on = twoFactorOn(sec);
    ctx.body = {
      email_verified: sec.email_unverified === 0,
      locale: sec.locale,
      two_factor: {
        enabled: on,
        enabled_at: iso(sec.totp_enabled_at),
        recovery_codes_left: on ? await recoveryCodesLeft(db, user.id) : 0,
      },
      two_factor_required: user.role === 'admin' && s.settings.accounts.requireAdmin2fa,
    };
  });

  router.patch('/console/api/me/security', requireUser(s), async (ctx) => {
    const b = bodyOf(ctx, ['locale']);
    const locale = parseLocale(b.locale);
    if (!locale) throw invalid("'locale' must be zh or en.");
    await updateSecurity(db, userOf(ctx).id, { locale });
    ctx.body = { locale };
  });

  router.post('/console/api/me/2fa/setup', requireUser(s), async (ctx) => {
    const password = reqString(bodyOf(ctx, ['password']), 'password', 200);
    const user = userOf(ctx);
    if (twoFactorOn(await securityOf(db, user.id))) throw new ApiError('CONFLICT', DETAILS.twoFactorOnEnrol());
    await reauth(ctx, password);
    const secret = newTotpSecret();
    await updateSecurity(db, user.id, { totp_pending_secret: secret });
    const uri = totpUri(secret, user.email);
    // The QR code is drawn here (as in payments), so the console needs no QR library and no image service.
    const qr_svg = await QRCode.toString(uri, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' });
    ctx.body = { secret, otpauth_uri: uri, qr_svg };
  });

  router.post('/console/api/me/2fa/enable', requireUser(s), async (ctx) => {
    const code = reqString(bodyOf(ctx, ['code']), 'code', 20);
    const user = userOf(ctx);
    const sec = await securityOf(db, user.id);
    if (twoFactorOn(sec)) throw new ApiError('CONFLICT', DETAILS.twoFactorOn());
    if (!sec.totp_pending_secret) throw new ApiError('CONFLICT', DETAILS.twoFactorSetupFirst());
    await guard.throttle(ctx, user.email, user);
    const step = await checkTotp(sec.totp_pending_secret, code, null);
    if (step === null) {
      await guard.recordFailure(ctx, user.email);
      throw new ApiError('WRONG_2FA_CODE');
    }
    await updateSecurity(db, user.id, {
      totp_secret: sec.totp_pending_secret,
      totp_pending_secret: null,
      totp_enabled_at: Date.now(),
      totp_last_step: step,
    });
    const codes = await newRecoveryCodes(db, user.id);
    await audit(ctx, s, {
      action: 'account.2fa_enable',
      targetType: 'user',
      targetId: user.id,
      subjectUserId: user.id,
    });
    ctx.body = { enabled: true, recovery_codes: codes };
  });

  router.post('/console/api/me/2fa/recovery-codes', requireUser(s), async (ctx) => {
    const code = reqString(bodyOf(ctx, ['code']), 'code', 20);
    await secondFactor(ctx, code);
    const codes = await newRecoveryCodes(db, userOf(ctx).id);
    await audit(ctx, s, {
      action: 'account.recovery_codes',
      targetType: 'user',
      targetId: userOf(ctx).id,
      subjectUserId: userOf(ctx).id,
    });
    ctx.body = { recovery_codes: codes };
  });

  router.post('/console/api/me/2fa/disable', requireUser(s), async (ctx) => {
    const b = bodyOf(ctx, ['password', 'code']);
    const password = reqString(b, 'password', 200);
    const code = reqString(b, 'code', 20);
    const user = userOf(ctx);
    if (!twoFactorOn(await securityOf(db, user.id))) throw new ApiError('CONFLICT', DETAILS.twoFactorOff());
    if (user.role === 'admin' && s.settings.accounts.requireAdmin2fa)
      throw new ApiError('TWO_FACTOR_REQUIRED', DETAILS.adminNeeds2fa());
    await reauth(ctx, password);
    await secondFactor(ctx, code);
    await disableTwoFactor(db, user.id);
    await audit(ctx, s, {
      action: 'account.2fa_disable',
      targetType: 'user',
      targetId: user.id,
      subjectUserId: user.id,
    });
    ctx.body = { enabled: false };
  });
}
