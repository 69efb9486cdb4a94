// The logged-in user's account security (core/console/contract/security.ts): password change, console sessions
// (user tokens), optional TOTP 2FA and the language of account mails. A password or code asked for again goes
// through the login throttle, so a session left open cannot be turned into a guessing machine.
import type { Context } from 'koa';
import QRCode from 'qrcode';
import { setPassword } from '../../accounts/password-change.js';
import { hashPassword, passwordWeakness } from '../../accounts/passwords.js';
import { verifySecondFactor } from '../../accounts/second-factor.js';
import {
  checkTotp,
  disableTwoFactor,
  newRecoveryCodes,
  newTotpSecret,
  recoveryCodesLeft,
  totpUri,
} from '../../accounts/totp.js';
import { securityOf, twoFactorOn, updateSecurity } from '../../accounts/user-security.js';
import { findUserById, type User } from '../../accounts/users.js';
import { DETAILS } from '../../http/error-details.js';
import { ApiError } from '../../http/errors.js';
import type { Services } from '../../services.js';
import { sendAccountMail } from '../api/account-mail.js';
import { audit } from '../api/audit.js';
import { tokenHashOf } from '../api/auth.js';
import { passwordGuardOf } from '../api/password-guard.js';
import { iso } from '../api/present.js';
import { SECURITY } from '../contract/security.js';
import { invalid } from './input-checks.js';
import { implement } from './mount-routes.js';

export function securityRoutes(s: Services) {
  const db = s.store.db;
  const guard = passwordGuardOf(s);

  /** The password again before a security change: a session left open on a shared computer is not enough. */
  const reauth = async (ctx: Context, user: User, password: string): Promise<void> => {
    const verdict = await guard.throttle(ctx, user.email, user);
    if (!(await guard.checkPassword(ctx, user.email, password, await findUserById(db, user.id), verdict)))
      throw new ApiError('WRONG_PASSWORD');
  };

  /** A wrong code counts as a failed login for this account and address. */
  const secondFactor = async (ctx: Context, user: User, code: string): Promise<void> => {
    await guard.throttle(ctx, user.email, user);
    if (!(await verifySecondFactor(db, user.id, code))) {
      await guard.recordFailure(ctx, user.email);
      throw new ApiError('UNAUTHORIZED', 'Wrong authentication code.');
    }
  };

  /** Ends the user's active sessions that `except` (a token hash) does not name; answers how many. */
  const endSessions = async (userId: number, except: string | null): Promise<number> => {
    let q = db
      .updateTable('user_tokens')
      .set({ revoked_at: Date.now() })
      .where('user_id', '=', userId)
      .where('revoked_at', 'is', null);
    if (except !== null) q = q.where('token_hash', '!=', except);
    return Number((await q.executeTakeFirst()).numUpdatedRows);
  };

  return implement(SECURITY, {
    changePassword: async ({ user, body: { current_password: current, new_password: fresh } }, ctx) => {
      const weak = passwordWeakness(fresh);
      if (weak) throw invalid(DETAILS.weakPassword(weak));
      if (current === fresh) throw invalid('The new password must differ from the current one.');
      // A stolen session must not turn into a password guess machine: wrong current passwords are throttled
      // exactly like failed logins.
      const verdict = await guard.throttle(ctx, user.email, user);
      const full = await findUserById(db, user.id);
      if (!(await guard.checkPassword(ctx, user.email, current, full, verdict))) throw new ApiError('WRONG_PASSWORD');
      const hash = await guard.gated(ctx, () => hashPassword(fresh));
      const signedOut = await setPassword(db, user.id, hash, tokenHashOf(ctx));
      await audit(ctx, s, {
        action: 'account.password_change',
        targetType: 'user',
        targetId: user.id,
        subjectUserId: user.id,
        detail: { signed_out_sessions: signedOut },
      });
      const mail = await sendAccountMail(s, ctx, user, 'password_changed');
      return { changed: true as const, signed_out_sessions: signedOut, notice_mailed: mail.ok };
    },

    sessions: async ({ user }, ctx) => {
      const now = Date.now();
      const rows = await db
        .selectFrom('user_tokens')
        .select(['id', 'token_hash', 'created_at', 'expires_at'])
        .where('user_id', '=', user.id)
        .where('revoked_at', 'is', null)
        .where('expires_at', '>', now)
        .orderBy('id', 'desc')
        .limit(100)
        .execute();
      const current = tokenHashOf(ctx);
      return {
        items: rows.map((r) => ({
          id: Number(r.id),
          created_at: iso(r.created_at),
          expires_at: iso(r.expires_at),
          current: r.token_hash === current,
        })),
      };
    },

    revokeSession: async ({ user, params: { id } }) => {
      const res = await db
        .updateTable('user_tokens')
        .set({ revoked_at: Date.now() })
        .where('id', '=', id)
        .where('user_id', '=', user.id)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      if (Number(res.numUpdatedRows) === 0)
        throw new ApiError('RESOURCE_NOT_FOUND', 'There is no such active session.');
      return { revoked: true as const };
    },

    revokeOtherSessions: async ({ user }, ctx) => ({ revoked: await endSessions(user.id, tokenHashOf(ctx)) }),

    revokeAllSessions: async ({ user }) => ({ revoked: await endSessions(user.id, null) }),

    security: async ({ user }) => {
      const sec = await securityOf(db, user.id);
      const on = twoFactorOn(sec);
      return {
        email_verified: sec.email_unverified === 0,
        locale: sec.locale,
        two_factor: {
          enabled: on,
          enabled_at: iso(sec.totp_enabled_at),
          recovery_codes_left: on ? await recoveryCodesLeft(db, user.id) : 0,
        },
        two_factor_required: user.role === 'admin' && s.settings.accounts.requireAdmin2fa,
      };
    },

    updateSecurity: async ({ user, body: { locale } }) => {
      await updateSecurity(db, user.id, { locale });
      return { locale };
    },

    twoFactorSetup: async ({ user, body: { password } }, ctx) => {
      if (twoFactorOn(await securityOf(db, user.id))) throw new ApiError('CONFLICT', DETAILS.twoFactorOnEnrol());
      await reauth(ctx, user, password);
      const secret = newTotpSecret();
      await updateSecurity(db, user.id, { totp_pending_secret: secret });
      const uri = totpUri(secret, user.email);
      // The QR code is drawn here (as in payments), so the console needs no QR library and no image service.
      const qr_svg = await QRCode.toString(uri, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' });
      return { secret, otpauth_uri: uri, qr_svg };
    },

    twoFactorEnable: async ({ user, body: { code } }, ctx) => {
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
      return { enabled: true as const, recovery_codes: codes };
    },

    twoFactorRecoveryCodes: async ({ user, body: { code } }, ctx) => {
      await secondFactor(ctx, user, code);
      const codes = await newRecoveryCodes(db, user.id);
      await audit(ctx, s, {
        action: 'account.recovery_codes',
        targetType: 'user',
        targetId: user.id,
        subjectUserId: user.id,
      });
      return { recovery_codes: codes };
    },

    twoFactorDisable: async ({ user, body: { password, code } }, ctx) => {
      if (!twoFactorOn(await securityOf(db, user.id))) throw new ApiError('CONFLICT', DETAILS.twoFactorOff());
      if (user.role === 'admin' && s.settings.accounts.requireAdmin2fa)
        throw new ApiError('TWO_FACTOR_REQUIRED', DETAILS.adminNeeds2fa());
      await reauth(ctx, user, password);
      await secondFactor(ctx, user, code);
      await disableTwoFactor(db, user.id);
      await audit(ctx, s, {
        action: 'account.2fa_disable',
        targetType: 'user',
        targetId: user.id,
        subjectUserId: user.id,
      });
      return { enabled: false as const };
    },
  });
}
