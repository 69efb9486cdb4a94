// Email + password accounts and their bearer tokens: sign up, log in (with a second step when 2FA is on), log
// out; a forgotten password reset by a mailed single-use link; the mailed link that confirms the email when the
// operator switches verification on. Each of these is also budgeted per IP (429 with Retry-After).
import { User } from './components.js';
import { defineRoutes } from './define.js';
import { answer, body, constant, rBool, ref, rStr, rTime, Type, text } from './schema.js';

// --- Requests ---------------------------------------------------------------------------------------------

/** An email address as typed: the handler normalises it and checks its shape (core/accounts/emails.ts). */
export const email = text(254, {
  format: 'email',
  description: 'normalised: NFKC, trimmed, lower-cased; no control characters',
  'x-error': { maxLength: "'email' is not a valid email address (at most 254 characters)." },
  'x-rule':
    'once normalised: at most 254 characters, name@domain (the name at most 64 characters) with a dotted host name, no control or invisible characters',
});
/** A new password: the one schema of sign-up, reset and change (`extra`: a route's own rule beside). */
export const newPassword = (extra: Record<string, unknown> = {}) =>
  Type.String({
    minLength: 8,
    maxLength: 200,
    // core/accounts/passwords.ts: at least one ASCII letter and one digit, in either order.
    pattern: '[A-Za-z][\\s\\S]*[0-9]|[0-9][\\s\\S]*[A-Za-z]',
    description: '8-200 characters, letters and digits',
    'x-error': {
      minLength: 'Weak password: password must be at least 8 characters.',
      pattern: 'Weak password: password must contain letters and digits.',
    },
    ...extra,
  });
/** A TOTP code or a recovery code. */
export const code = text(20, { description: '6-digit TOTP code or a recovery code (xxxxx-xxxxx)' });
const remember = Type.Optional(
  Type.Boolean({
    description:
      '"remember me": true gives a long-lived session (USER_TOKEN_REMEMBER_HOURS, default 30 days) instead of USER_TOKEN_TTL_HOURS',
  }),
);
const locale = Type.Optional(Type.Unsafe<'zh' | 'en'>({ enum: ['zh', 'en'], 'x-error': "'locale' must be zh or en." }));
/** A mailed link's token. */
const linkToken = text(100);
const byEmail = body({ email });

// --- Answers ------------------------------------------------------------------------------------------------

const session = answer({ token: rStr, expires_at: rTime, remember: rBool, user: ref('User', User) });
const challenge = answer({ two_factor_required: constant(true), challenge: rStr, expires_at: rTime });
const pendingVerification = answer({ verification_required: constant(true), mail_sent: rBool });
const mailAccepted = answer({ accepted: constant(true), message: rStr });

export const AUTH = defineRoutes({
  register: {
    method: 'POST',
    path: '/console/api/register',
    summary:
      'Create an account and log in (an existing email with its password logs in; 429 beyond the per-IP sign-up budget)',
    auth: 'none',
    body: body({ email, password: newPassword(), locale, remember }),
    responses: {
      201: Type.Union([session, pendingVerification, challenge], {
        description:
          'the session; or, with REQUIRE_EMAIL_VERIFICATION, the mailed link to follow first; signing up again with the password of an account that has 2FA on answers 200 with the login challenge',
      }),
    },
    errors: ['REGISTRATION_CLOSED', 'EMAIL_DOMAIN_NOT_ALLOWED', 'EMAIL_NOT_VERIFIED'],
  },
  login: {
    method: 'POST',
    path: '/console/api/login',
    summary: 'Log in for a user token (429 with Retry-After while throttled)',
    auth: 'none',
    // Any password up to 200 characters: a short one is a wrong password (401), not a malformed request.
    body: body({ email, password: text(200), remember }),
    responses: { 200: Type.Union([session, challenge, pendingVerification]) },
    errors: ['INVALID_CREDENTIALS', 'EMAIL_NOT_VERIFIED'],
  },
  login2fa: {
    method: 'POST',
    path: '/console/api/login/2fa',
    summary: 'Second login step when 2FA is on: the challenge from /login and a code',
    auth: 'none',
    body: body({
      challenge: text(100),
      code,
      remember: Type.Optional(Type.Boolean({ description: 'true: a long-lived session (USER_TOKEN_REMEMBER_HOURS)' })),
    }),
    responses: { 200: session },
    errors: ['INVALID_TOKEN', 'WRONG_2FA_CODE'],
  },
  logout: {
    method: 'POST',
    path: '/console/api/logout',
    summary: 'Revoke this user token',
    auth: 'user',
    responses: { 200: answer({ logged_out: constant(true) }) },
  },
  forgotPassword: {
    method: 'POST',
    path: '/console/api/password/forgot',
    summary: 'Mail a reset link (30 minutes, single use); the same 202 answer whether or not the email has an account',
    auth: 'none',
    body: byEmail,
    responses: { 202: mailAccepted },
  },
  resetPassword: {
    method: 'POST',
    path: '/console/api/password/reset',
    summary: 'Set a new password with the mailed token; every session is signed out',
    auth: 'none',
    body: body({ token: linkToken, password: newPassword() }),
    responses: { 200: answer({ reset: constant(true), signed_out_sessions: Type.Integer() }) },
    errors: ['INVALID_TOKEN'],
  },
  verifyEmail: {
    method: 'POST',
    path: '/console/api/email/verify',
    summary: 'Confirm the email with the mailed token (REQUIRE_EMAIL_VERIFICATION)',
    auth: 'none',
    body: body({ token: linkToken }),
    responses: { 200: answer({ verified: constant(true) }) },
    errors: ['INVALID_TOKEN'],
  },
  resendVerification: {
    method: 'POST',
    path: '/console/api/email/verify/resend',
    summary: 'Mail a new confirmation link; the same 202 answer whether or not the email has an account',
    auth: 'none',
    body: byEmail,
    responses: { 202: mailAccepted },
  },
});
