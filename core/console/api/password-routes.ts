// Passwords and email ownership: change (current password required, other sessions end), reset by a mailed
// single-use link (30 minutes, hashed at rest, rate-limited, the same answer whether or not the email has an
// account), and email verification links when the operator switches verification on.
import type Router from '@koa/router';
import { consumeAccountToken, pruneAccountTokens } from '../../accounts/account-tokens.js';
import { MAX_EMAIL_LENGTH } from '../../accounts/emails.js';
import { setPassword } from '../../accounts/password-change.js';
import { hashPassword, passwordWeakness } from '../../accounts/passwords.js';
import { securityOf, updateSecurity } from '../../accounts/user-security.js';
import { emailProblem, findUserByEmail, findUserById, normaliseEmail, type User } from '../../accounts/users.js';
import { grantTrial } from '../../billing/payments/trial-credit.js';
import { clientIpOf } from '../../http/client-ip.js';
import { DETAILS } from '../../http/error-details.js';
import { ApiError } from '../../http/errors.js';
import { throttledLine } from '../../kernel/log-throttle.js';
import { writeAudit } from '../../notify/audit-log.js';
import type { Services } from '../../services.js';
import { sendAccountMail, sendResetMail, sendVerificationMail } from './account-mail.js';
import { audit } from './audit.js';
import { requireUser, tokenHashOf, userOf } from './auth.js';
import { spendIpBudget } from './auth-limits.js';
import { bodyOf, invalid, reqString } from './input.js';
import type { PasswordGuard } from './password-guard.js';

const FORGOT_ANSWER =
  'If an account exists for this email, a link to reset its password has been sent. It is valid for 30 minutes.';
const RESEND_ANSWER = 'If this email has an account waiting for confirmation, a new confirmation link has been sent.';
const BAD_LINK = DETAILS.badLink();
/** Mails per account: 3 at once, then 3 per hour, so a stranger cannot flood someone's mailbox. */
const PER_ACCOUNT = { rate: 3 / 3600, burst: 3 };

function newPassword(b: Record<string, unknown>, name: string): string {
  const password = reqString(b, name, 200);
  const weak = passwordWeakness(password);
  if (weak) throw invalid(`Weak password: ${weak}.`);
  return password;
}

function emailOf(b: Record<string, unknown>): string {
  const email = normaliseEmail(reqString(b, 'email', 4 * MAX_EMAIL_LENGTH));
  const problem = emailProblem(email);
  if (problem) throw invalid(`'email' is not a valid email address (${problem}).`);
  return email;
}

export function passwordRoutes(router: Router, s: Services, guard: PasswordGuard): void {
  const db = s.store.db;
  // Anyone can ask for another account's mails: the line about it is written at most once a minute.
  const budgetSpent = throttledLine(s.logger, 'warn', 'account mail skipped: per-account budget spent');

  /**
   * Mails to an address only if it names an account and its per-account budget allows. Runs after the answer is
   * decided and is not awaited, so the response time does not tell whether the account exists; a failure is
   * recorded in the outbox table and the log.
   */
  const mailInBackground = (
    email: string,
    pick: (u: User) => Promise<boolean>,
    send: (u: User) => Promise<unknown>,
  ): void => {
    // setImmediate: the answer is written before the look-up starts, so even its microtasks cannot delay it.
    setImmediate(
      () =>
        void (async () => {
          const user = await findUserByEmail(db, email);
          if (user?.status !== 'active' || !(await pick(user))) return;
          if (!(await s.state.takeToken(`console:mail:acct:${user.id}`, PER_ACCOUNT.rate, PER_ACCOUNT.burst)).allowed) {
            budgetSpent({ user_id: user.id });
            return;
          }
          await send(user);
          await pruneAccountTokens(db);
        })().catch((err: unknown) =>
          s.logger.error('account mail task failed', { reason: err instanceof Error ? err.message : String(err) }),
        ),
    );
  };

  router.post('/console/api/me/password', requireUser(s), async (ctx) => {
    const b = bodyOf(ctx, ['current_password', 'new_password']);
    const current = reqString(b, 'current_password', 200);
    const fresh = newPassword(b, 'new_password');
    if (current === fresh) throw invalid('The new password must differ from the current one.');
    const user = userOf(ctx);
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
    ctx.body = { changed: true, signed_out_sessions: signedOut, notice_mailed: mail.ok };
  });

  router.post('/console/api/password/forgot', async (ctx) => {
    const email = emailOf(bodyOf(ctx, ['email']));
    await spendIpBudget(ctx, s, 'passwordReset');
    mailInBackground(
      email,
      async () => true,
      (u) => sendResetMail(s, ctx, u),
    );
    ctx.status = 202;
    ctx.body = { accepted: true, message: FORGOT_ANSWER };
  });

  router.post('/console/api/password/reset', async (ctx) => {
    const b = bodyOf(ctx, ['token', 'password']);
    const token = reqString(b, 'token', 100);
    const password = newPassword(b, 'password');
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
    ctx.body = { reset: true, signed_out_sessions: signedOut };
  });

  router.post('/console/api/email/verify', async (ctx) => {
    const token = reqString(bodyOf(ctx, ['token']), 'token', 100);
    await spendIpBudget(ctx, s, 'passwordReset');
    const userId = await consumeAccountToken(db, token, 'verify');
    if (userId === null) throw new ApiError('INVALID_TOKEN', BAD_LINK);
    await updateSecurity(db, userId, { email_unverified: 0 });
    // The trial credit held back at sign-up (once per account: a second verification grants nothing).
    await grantTrial(db, s.registry.current, s.settings.payments, userId);
    s.plans.invalidate(userId);
    ctx.body = { verified: true };
  });

  router.post('/console/api/email/verify/resend', async (ctx) => {
    const email = emailOf(bodyOf(ctx, ['email']));
    await spendIpBudget(ctx, s, 'passwordReset');
    mailInBackground(
      email,
      async (u) => (await securityOf(db, u.id)).email_unverified === 1,
      (u) => sendVerificationMail(s, ctx, u),
    );
    ctx.status = 202;
    ctx.body = { accepted: true, message: RESEND_ANSWER };
  });
}
