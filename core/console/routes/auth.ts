// Email + password accounts (core/console/contract/auth.ts): sign-up, login and its second step, logout, the
// reset link for a forgotten password and the email confirmation link. Login throttling
// (core/accounts/login-throttle.ts) and per-IP budgets (api/auth-limits.ts) keep guessing slow without letting a
// stranger lock the owner out; every scrypt runs through the app's one PasswordWork gate (api/password-guard.ts).
import type { Context } from 'koa';
import { consumeAccountToken, issueAccountToken, peekAccountToken } from '../../accounts/account-tokens.js';
import { localeFromAcceptLanguage, parseLocale } from '../../accounts/locale.js';
import { setPassword } from '../../accounts/password-change.js';
import { hashPassword, passwordWeakness } from '../../accounts/passwords.js';
import { verifySecondFactor } from '../../accounts/second-factor.js';
import { signUpRefusal } from '../../accounts/sign-up-policy.js';
import { securityOf, twoFactorOn, updateSecurity } from '../../accounts/user-security.js';
import { issueUserToken, revokeUserToken } from '../../accounts/user-tokens.js';
import {
  createUser,
  emailProblem,
  findUserByEmail,
  findUserById,
  normaliseEmail,
  type User,
} from '../../accounts/users.js';
import { grantTrial } from '../../billing/payments/trial-credit.js';
import { clientIpOf } from '../../http/client-ip.js';
import { DETAILS } from '../../http/error-details.js';
import { ApiError } from '../../http/errors.js';
import { writeAudit } from '../../notify/audit-log.js';
import type { Services } from '../../services.js';
import { sendResetMail, sendVerificationMail } from '../api/account-mail.js';
import { tokenHashOf } from '../api/auth.js';
import { spendIpBudget } from '../api/auth-limits.js';
import { mailInBackground } from '../api/mail-in-background.js';
import { passwordGuardOf } from '../api/password-guard.js';
import { presentUser } from '../api/present.js';
import { signUpOfKnownEmail } from '../api/sign-up-known.js';
import { checkTwoFactorBudget, twoFactorFailed, twoFactorPassed } from '../api/two-factor-login.js';
import { AUTH } from '../contract/auth.js';
import type { ResponseOf } from '../contract/define.js';
import { invalid } from './input-checks.js';
import { implement } from './mount-routes.js';

type Session = ResponseOf<typeof AUTH.login2fa>;
type Challenge = Extract<ResponseOf<typeof AUTH.login>, { two_factor_required: true }>;

/** Register and login answer an existing email with a wrong password alike, so sign-up is no oracle beyond login. */
const TAKEN = DETAILS.emailTaken();
const BAD_LINK = DETAILS.badLink();
const FORGOT_ANSWER =
  'If an account exists for this email, a link to reset its password has been sent. It is valid for 30 minutes.';
const RESEND_ANSWER = 'If this email has an account waiting for confirmation, a new confirmation link has been sent.';

function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  return e.code === 'SQLITE_CONSTRAINT_UNIQUE' || e.code === '23505' || /UNIQUE constraint/i.test(e.message ?? '');
}

/** The account name of an email as typed: normalised, then its shape (the schema checked type and length). */
function accountEmail(typed: string): string {
  const email = normaliseEmail(typed);
  const problem = emailProblem(email);
  if (problem) throw invalid(DETAILS.emailInvalid(problem));
  return email;
}

/** The schema checked length and letters + digits; this counts length as the password rules do. */
function strongPassword(password: string): string {
  const weak = passwordWeakness(password);
  if (weak) throw invalid(DETAILS.weakPassword(weak));
  return password;
}

export function authRoutes(s: Services) {
  const db = s.store.db;
  const guard = passwordGuardOf(s);
  const mailLater = mailInBackground(s);

  // "Remember me" asks for the long-lived token (USER_TOKEN_REMEMBER_HOURS) the browser keeps across restarts;
  // without it the token lives USER_TOKEN_TTL_HOURS and the console keeps it only for the browser session.
  const issue = async (user: User, remember: boolean): Promise<Session> => {
    const ttl = remember ? s.settings.accounts.rememberTokenHours : s.settings.userTokenTtlHours;
    const { token, expiresAt } = await issueUserToken(db, user.id, ttl);
    return { token, expires_at: new Date(expiresAt).toISOString(), remember, user: presentUser(user) };
  };

  /** Password accepted: refuse an unverified email, ask for the second factor (200), or hand out the session. */
  const afterPassword = async (ctx: Context, user: User, remember: boolean): Promise<Session | Challenge> => {
    const sec = await securityOf(db, user.id);
    if (sec.email_unverified) throw new ApiError('EMAIL_NOT_VERIFIED');
    if (twoFactorOn(sec)) {
      const { token, expiresAt } = await issueAccountToken(db, user.id, 'twofactor');
      ctx.status = 200;
      return { two_factor_required: true, challenge: token, expires_at: new Date(expiresAt).toISOString() };
    }
    return issue(user, remember);
  };

  return implement(AUTH, {
    register: async ({ body }, ctx) => {
      const email = accountEmail(body.email);
      const password = body.password;
      const remember = body.remember ?? false;
      const refusal = signUpRefusal(s.settings.accounts, email);
      if (refusal) throw new ApiError(refusal.code, refusal.message);
      strongPassword(password);
      // Counted once the request is well-formed: a typo costs the person nothing, every real attempt does.
      await spendIpBudget(ctx, s, 'register');
      const existing = await findUserByEmail(db, email);
      const verify = s.settings.accounts.requireEmailVerification;
      // With verification on, a known email gets the very answer of a new sign-up (after the same scrypt time) and
      // its owner a mail, so sign-up reveals nothing about which emails have accounts.
      if (existing && verify) return signUpOfKnownEmail(ctx, s, guard, existing, password);
      if (existing) {
        // Signing up again with the right password is a login (201, same shape as a new account); with a wrong one
        // it counts as a failed login, so probing emails through sign-up is throttled exactly like guessing.
        const verdict = await guard.throttle(ctx, email, existing);
        if (!(await guard.checkPassword(ctx, email, password, existing, verdict)) || existing.status !== 'active')
          throw new ApiError('CONFLICT', TAKEN);
        return afterPassword(ctx, existing, remember);
      }
      let user: User;
      try {
        const hash = await guard.gated(ctx, () => hashPassword(password));
        user = await createUser(db, email, password, 'user', hash);
      } catch (err) {
        // Two registrations racing for one email: the unique index decides.
        if (isUniqueViolation(err)) {
          const winner = verify ? await findUserByEmail(db, email) : undefined;
          if (winner) return signUpOfKnownEmail(ctx, s, guard, winner, null);
          throw new ApiError('CONFLICT', TAKEN);
        }
        throw err;
      }
      // Trial credit (TRIAL_CREDIT / TRIAL_PLAN), once per account; the per-IP sign-up budget above limits farming.
      // With REQUIRE_EMAIL_VERIFICATION it waits for the verified mailbox (verifyEmail below).
      if (!verify) {
        await grantTrial(db, s.registry.current, s.settings.payments, user.id);
        s.plans.invalidate(user.id);
      }
      const locale = parseLocale(body.locale) ?? localeFromAcceptLanguage(ctx.get('accept-language'));
      if (locale || verify) await updateSecurity(db, user.id, { locale, email_unverified: verify ? 1 : 0 });
      if (verify) {
        const mail = await sendVerificationMail(s, ctx, user);
        return { verification_required: true as const, mail_sent: mail.ok };
      }
      return issue(user, remember);
    },

    login: async ({ body }, ctx) => {
      const email = accountEmail(body.email);
      await spendIpBudget(ctx, s, 'login');
      const user = await findUserByEmail(db, email);
      const verdict = await guard.throttle(ctx, email, user);
      if (!(await guard.checkPassword(ctx, email, body.password, user, verdict)))
        throw new ApiError('INVALID_CREDENTIALS');
      if (user?.status !== 'active') throw new ApiError('ACCOUNT_DISABLED');
      return afterPassword(ctx, user, body.remember ?? false);
    },

    // Second step of a login with 2FA: the challenge from /login plus a TOTP or recovery code. A wrong code
    // counts as a failed login (same throttle) and against the account's second-factor budget over all addresses
    // (api/two-factor-login.ts); the challenge survives it until it expires, succeeds or that budget runs out.
    login2fa: async ({ body: { challenge, code, remember = false } }, ctx) => {
      await spendIpBudget(ctx, s, 'login');
      const userId = await peekAccountToken(db, challenge, 'twofactor');
      if (userId === null) throw new ApiError('INVALID_TOKEN', DETAILS.challengeInvalid());
      const user = await findUserById(db, userId);
      if (!user) throw new ApiError('INVALID_TOKEN', DETAILS.challengeInvalid());
      await guard.throttle(ctx, user.email, user);
      await checkTwoFactorBudget(ctx, s, user);
      if (!(await verifySecondFactor(db, user.id, code))) {
        await guard.recordFailure(ctx, user.email);
        await twoFactorFailed(ctx, s, user);
        throw new ApiError('WRONG_2FA_CODE');
      }
      await twoFactorPassed(s, user);
      if (user.status !== 'active') throw new ApiError('ACCOUNT_DISABLED');
      if ((await consumeAccountToken(db, challenge, 'twofactor')) === null)
        throw new ApiError('INVALID_TOKEN', DETAILS.challengeUsed());
      return issue(user, remember);
    },

    logout: async (_input, ctx) => {
      await revokeUserToken(db, tokenHashOf(ctx));
      return { logged_out: true as const };
    },

    forgotPassword: async ({ body }, ctx) => {
      const email = accountEmail(body.email);
      await spendIpBudget(ctx, s, 'passwordReset');
      mailLater(
        email,
        async () => true,
        (u) => sendResetMail(s, ctx, u),
      );
      return { accepted: true as const, message: FORGOT_ANSWER };
    },

    resetPassword: async ({ body: { token, password } }, ctx) => {
      strongPassword(password);
      await spendIpBudget(ctx, s, 'passwordReset');
      const userId = await consumeAccountToken(db, token, 'reset');
      const user = userId === null ? undefined : await findUserById(db, userId);
      if (!user) throw new ApiError('INVALID_TOKEN', BAD_LINK);
      if (user.status !== 'active') throw new ApiError('ACCOUNT_DISABLED');
      const hash = await guard.gated(ctx, () => hashPassword(password));
      // Every session ends: whoever knew the old password is out. The link proved the mailbox, so a pending
      // verification is done too. No session is handed out here: 2FA, when on, still applies at the next login.
      const signedOut = await setPassword(db, user.id, hash, null);
      // No session here: the account itself is the actor (the link proved its mailbox).
      await writeAudit(db, {
        actorId: user.id,
        actorRole: 'user',
        action: 'account.password_reset',
        targetType: 'user',
        targetId: user.id,
        subjectUserId: user.id,
        detail: { signed_out_sessions: signedOut },
        ip: clientIpOf(ctx),
      });
      if ((await securityOf(db, user.id)).email_unverified) await updateSecurity(db, user.id, { email_unverified: 0 });
      return { reset: true as const, signed_out_sessions: signedOut };
    },

    verifyEmail: async ({ body: { token } }, ctx) => {
      await spendIpBudget(ctx, s, 'passwordReset');
      const userId = await consumeAccountToken(db, token, 'verify');
      if (userId === null) throw new ApiError('INVALID_TOKEN', BAD_LINK);
      await updateSecurity(db, userId, { email_unverified: 0 });
      // The trial credit held back at sign-up (once per account: a second verification grants nothing).
      await grantTrial(db, s.registry.current, s.settings.payments, userId);
      s.plans.invalidate(userId);
      return { verified: true as const };
    },

    resendVerification: async ({ body }, ctx) => {
      const email = accountEmail(body.email);
      await spendIpBudget(ctx, s, 'passwordReset');
      mailLater(
        email,
        async (u) => (await securityOf(db, u.id)).email_unverified === 1,
        (u) => sendVerificationMail(s, ctx, u),
      );
      return { accepted: true as const, message: RESEND_ANSWER };
    },
  });
}
