// Account-security endpoints (passwords, email verification, 2FA, sessions, admin mail tools) as data for the
// OpenAPI document; spread into CONSOLE_ENDPOINTS (console-endpoints.ts).
import { type ConsoleEndpoint, NEW_PASSWORD } from './endpoint-schemas.js';

type Schema = Record<string, unknown>;
/** A string the handler reads with reqString: not blank. */
const str = { type: 'string', minLength: 1, pattern: '\\S' };
/** The same, at most `maxLength` characters (the handler's limit). */
const text = (maxLength: number) => ({ ...str, maxLength });
/** A new password: the one schema of sign-up, reset and change (letters and digits, 8-200 characters). */
const password = NEW_PASSWORD;
const code = { ...text(20), description: '6-digit TOTP code or a recovery code (xxxxx-xxxxx)' };
const obj = (properties: Record<string, Schema>, required: string[] = []): Schema => ({
  type: 'object',
  additionalProperties: false,
  properties,
  ...(required.length ? { required } : {}),
});
const email = obj(
  {
    email: {
      ...text(254),
      format: 'email',
      'x-error': { maxLength: "'email' is not a valid email address (at most 254 characters)." },
    },
  },
  ['email'],
);

export const ACCOUNT_ENDPOINTS: ConsoleEndpoint[] = [
  {
    id: 'login2fa',
    errors: ['INVALID_TOKEN', 'WRONG_2FA_CODE'],
    method: 'POST',
    path: '/console/api/login/2fa',
    summary: 'Second login step when 2FA is on: the challenge from /login and a code',
    auth: 'none',
    body: obj(
      {
        challenge: text(100),
        code,
        remember: { type: 'boolean', description: 'true: a long-lived session (USER_TOKEN_REMEMBER_HOURS)' },
      },
      ['challenge', 'code'],
    ),
  },
  {
    id: 'changePassword',
    errors: ['WRONG_PASSWORD'],
    method: 'POST',
    path: '/console/api/me/password',
    summary: 'Change the password (current one required); every other session is signed out',
    auth: 'user',
    body: obj({ current_password: text(200), new_password: password }, ['current_password', 'new_password']),
  },
  {
    id: 'forgotPassword',
    method: 'POST',
    path: '/console/api/password/forgot',
    summary: 'Mail a reset link (30 minutes, single use); the same 202 answer whether or not the email has an account',
    auth: 'none',
    body: email,
    status: 202,
  },
  {
    id: 'resetPassword',
    errors: ['INVALID_TOKEN'],
    method: 'POST',
    path: '/console/api/password/reset',
    summary: 'Set a new password with the mailed token; every session is signed out',
    auth: 'none',
    body: obj({ token: text(100), password }, ['token', 'password']),
  },
  {
    id: 'verifyEmail',
    errors: ['INVALID_TOKEN'],
    method: 'POST',
    path: '/console/api/email/verify',
    summary: 'Confirm the email with the mailed token (REQUIRE_EMAIL_VERIFICATION)',
    auth: 'none',
    body: obj({ token: text(100) }, ['token']),
  },
  {
    id: 'resendVerification',
    method: 'POST',
    path: '/console/api/email/verify/resend',
    summary: 'Mail a new confirmation link; the same 202 answer whether or not the email has an account',
    auth: 'none',
    body: email,
    status: 202,
  },
  {
    id: 'security',
    method: 'GET',
    path: '/console/api/me/security',
    summary: '2FA state, recovery codes left, email verification, mail language',
    auth: 'user',
  },
  {
    id: 'updateSecurity',
    method: 'PATCH',
    path: '/console/api/me/security',
    summary: 'Set the language of account mails',
    auth: 'user',
    body: obj({ locale: { enum: ['zh', 'en'] } }, ['locale']),
  },
  {
    id: 'twoFactorSetup',
    errors: ['WRONG_PASSWORD'],
    method: 'POST',
    path: '/console/api/me/2fa/setup',
    summary: 'Start 2FA enrolment (password required): TOTP secret, otpauth URI and its QR code (SVG)',
    auth: 'user',
    body: obj({ password: text(200) }, ['password']),
  },
  {
    id: 'twoFactorEnable',
    errors: ['WRONG_2FA_CODE'],
    method: 'POST',
    path: '/console/api/me/2fa/enable',
    summary: 'Confirm enrolment with a first code; answers 10 recovery codes, shown once',
    auth: 'user',
    body: obj({ code }, ['code']),
  },
  {
    id: 'twoFactorRecoveryCodes',
    errors: ['WRONG_2FA_CODE'],
    method: 'POST',
    path: '/console/api/me/2fa/recovery-codes',
    summary: 'Replace the recovery codes (a code required)',
    auth: 'user',
    body: obj({ code }, ['code']),
  },
  {
    id: 'twoFactorDisable',
    errors: ['WRONG_PASSWORD', 'WRONG_2FA_CODE', 'TWO_FACTOR_REQUIRED'],
    method: 'POST',
    path: '/console/api/me/2fa/disable',
    summary: 'Turn 2FA off (password and a code required)',
    auth: 'user',
    body: obj({ password: text(200), code }, ['password', 'code']),
  },
  {
    id: 'sessions',
    method: 'GET',
    path: '/console/api/me/sessions',
    summary: 'My active console sessions',
    auth: 'user',
  },
  {
    id: 'revokeSession',
    method: 'DELETE',
    path: '/console/api/me/sessions/:id',
    summary: 'End one of my sessions',
    auth: 'user',
  },
  {
    id: 'revokeOtherSessions',
    method: 'POST',
    path: '/console/api/me/sessions/revoke-others',
    summary: 'End every session but this one',
    auth: 'user',
  },
  {
    id: 'revokeAllSessions',
    method: 'POST',
    path: '/console/api/me/sessions/revoke-all',
    summary: 'Sign out everywhere: end every session, this one included',
    auth: 'user',
  },
];
