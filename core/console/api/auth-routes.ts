// POST /console/api/register, /login, /login/2fa, /logout: email + password accounts and their bearer tokens.
// Login throttling (core/accounts/login-throttle.ts) and per-IP budgets (auth-limits.ts) keep guessing slow
// without letting a stranger lock the owner out; every scrypt runs through one PasswordWork gate per app
// (password-guard.ts), shared with the password, 2FA and admin account routes mounted from here.
import type Router from '@koa/router';
import type { Context } from 'koa';
import { consumeAccountToken, issueAccountToken, peekAccountToken } from '../../accounts/account-tokens.js';
import { MAX_EMAIL_LENGTH } from '../../accounts/emails.js';
import { localeFromAcceptLanguage, parseLocale } from '../../accounts/locale.js';
import { hashPassword, passwordWeakness } from '../../accounts/passwords.js';
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
import { DETAILS } from '../../http/error-details.js';
import { ApiError } from '../../http/errors.js';
import type { Services } from '../../services.js';
import { sendVerificationMail } from './account-mail.js';
import { requireUser, tokenHashOf } from './auth.js';
import { spendIpBudget } from './auth-limits.js';
import { bodyOf, invalid, reqString } from './input.js';
import { type PasswordGuard, passwordGuardOf } from './password-guard.js';
import { passwordRoutes } from './password-routes.js';
import { presentUser } from './present.js';
import { sessionRoutes } from './session-routes.js';
import { signUpOfKnownEmail } from './sign-up-known.js';
import { checkTwoFactorBudget, twoFactorFailed, twoFactorPassed } from './two-factor-login.js';
import { twoFactorRoutes, verifySecondFactor } from './two-factor-routes.js';

/** Register and login answer an existing email with a wrong password alike, so sign-up is no oracle beyond login. */
const TAKEN = DETAILS.emailTaken();

function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  return e.code === 'SQLITE_CONSTRAINT_UNIQUE' || e.code === '23505' || /UNIQUE constraint/i.test(e.message ?? '');
}

function credentials(
  ctx: Context,
  extra: readonly string[] = [],
): { email: string; password: string; body: Record<string, unknown> } {
  const b = bodyOf(ctx, ['email', 'password', ...extra]);
  // A generous raw cap; the real limit (254 after normalising) is reported by emailProblem.
  const email = normaliseEmail(reqString(b, 'email', 4 * MAX_EMAIL_LENGTH));
  const password = reqString(b, 'password', 200);
  const problem = emailProblem(email);
  if (problem) throw invalid(DETAILS.emailInvalid(problem));
  return { email, password, body: b };
}

/** Optional `remember` flag of register, login and login/2fa: a boolean when present. */
function rememberOf(body: Record<string, unknown>): boolean {
  if (body.remember === undefined) return false;
  if (typeof body.remember !== 'boolean') throw invalid(DETAILS.boolean('remember'));
  return body.remember;
}

export function authRoutes(router: Router, s: Services): void {
  const db = s.store.db;
  const guard: PasswordGuard = passwordGuardOf(s);

  // "Remember me" asks for the long-lived token (USER_TOKEN_REMEMBER_HOURS) the browser keeps across restarts;
  // without it the token lives USER_TOKEN_TTL_HOURS and the console keeps it only for the browser session.
  const issue = async (ctx: Context, user: User, status: number, remember: boolean): Promise<void> => {
    const ttl = remember ? s.settings.accounts.rememberTokenHours : s.settings.userTokenTtlHours;
    const { token, expiresAt } = await issueUserToken(db, user.id, ttl);
    ctx.status = status;
    ctx.body = { token, expires_at: new Date(expiresAt).toISOString(), remember, user: presentUser(user) };
  };

  /** Password accepted: refuse an unverified email, ask for the second factor, or hand out the session. */
  const afterPassword = async (ctx: Context, user: User, status: number, remember: boolean): Promise<void> => {
    const sec = await securityOf(db, user.id);
    if (sec.email_unverified) throw new ApiError('EMAIL_NOT_VERIFIED');
    if (twoFactorOn(sec)) {
      const { token, expiresAt } = await issueAccountToken(db, user.id, 'twofactor');
      ctx.status = 200;
      ctx.body = { two_factor_required: true, challenge: token, expires_at: new Date(expiresAt).toISOString() };
      return;
    }
    await issue(ctx, user, status, remember);
  };

  router.post('/console/api/register', async (ctx) => {
    const { email, password, body } = credentials(ctx, ['locale', 'remember']);
    const remember = rememberOf(body);
    const refusal = signUpRefusal(s.settings.accounts, email);
    if (refusal) throw new ApiError(refusal.code, refusal.message);
    const weak = passwordWeakness(password);
    if (weak) throw invalid(DETAILS.weakPassword(weak));
    if (body.locale !== undefined && !parseLocale(body.locale)) throw invalid(DETAILS.locale());
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
      return afterPassword(ctx, existing, 201, remember);
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
    // With REQUIRE_EMAIL_VERIFICATION it waits for the verified mailbox (password-routes.ts).
    if (!s.settings.accounts.requireEmailVerification) {
      await grantTrial(db, s.registry.current, s.settings.payments, user.id);
      s.plans.invalidate(user.id);
    }
    const locale = parseLocale(body.locale) ?? localeFromAcceptLanguage(ctx.get('accept-language'));
    if (locale || verify) await updateSecurity(db, user.id, { locale, email_unverified: verify ? 1 : 0 });
    if (verify) {
      const mail = await sendVerificationMail(s, ctx, user);
      ctx.status = 201;
      ctx.body = { verification_required: true, mail_sent: mail.ok };
      return;
    }
    await issue(ctx, user, 201, remember);
  });

  router.post('/console/api/login', async (ctx) => {
    const { email, password, body } = credentials(ctx, ['remember']);
    const remember = rememberOf(body);
    await spendIpBudget(ctx, s, 'login');
    const user = await findUserByEmail(db, email);
    const verdict = await guard.throttle(ctx, email, user);
    if (!(await guard.checkPassword(ctx, email, password, user, verdict))) throw new ApiError('INVALID_CREDENTIALS');
    if (user?.status !== 'active') throw new ApiError('ACCOUNT_DISABLED');
    await afterPassword(ctx, user, 200, remember);
  });

  // Second step of a login with 2FA: the challenge from /login plus a TOTP or recovery code. A wrong code
  // counts as a failed login (same throttle) and against the account's second-factor budget over all addresses
  // (two-factor-login.ts); the challenge survives it until it expires, succeeds or that budget runs out.
  router.post('/console/api/login/2fa', async (ctx) => {
    const b = bodyOf(ctx, ['challenge', 'code', 'remember']);
    const remember = rememberOf(b);
    const challenge = reqString(b, 'challenge', 100);
    const code = reqString(b, 'code', 20);
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
    await issue(ctx, user, 200, remember);
  });

  router.post('/console/api/logout', requireUser(s), async (ctx) => {
    await revokeUserToken(db, tokenHashOf(ctx));
    ctx.body = { logged_out: true };
  });

  passwordRoutes(router, s, guard);
  twoFactorRoutes(router, s, guard);
  sessionRoutes(router, s);
}
