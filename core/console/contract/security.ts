// The logged-in user's account security: the password (change), console sessions (list, end one, end the others
// or all), optional TOTP two-factor authentication (enrol, confirm, new recovery codes, turn off) and the
// language of account mails. Every change that could lock the owner out asks for the password or a code again.
import { code, newPassword } from './auth.js';
import { defineRoutes } from './define.js';
import {
  answer,
  body,
  constant,
  list,
  oneOf,
  orNull,
  params,
  pathId,
  rBool,
  rInt,
  rStr,
  rTime,
  Type,
  text,
} from './schema.js';

const recoveryCodes = list(rStr);
const sessionsEnded = Type.Integer({ description: 'sessions ended' });

export const SECURITY = defineRoutes({
  changePassword: {
    method: 'POST',
    path: '/console/api/me/password',
    summary: 'Change the password (current one required); every other session is signed out',
    auth: 'user',
    body: body({
      current_password: text(200),
      new_password: newPassword({ 'x-rule': 'different from current_password' }),
    }),
    responses: { 200: answer({ changed: constant(true), signed_out_sessions: rInt, notice_mailed: rBool }) },
    errors: ['WRONG_PASSWORD'],
  },
  sessions: {
    method: 'GET',
    path: '/console/api/me/sessions',
    summary: 'My active console sessions',
    auth: 'user',
    responses: {
      200: answer({
        items: list(answer({ id: rInt, created_at: orNull(rTime), expires_at: orNull(rTime), current: rBool })),
      }),
    },
    links: {
      revokeSession: {
        operationId: 'revokeSession',
        parameters: { id: '$response.body#/items/0/id' },
        description: 'Sign out the first listed session',
      },
    },
  },
  revokeSession: {
    method: 'DELETE',
    path: '/console/api/me/sessions/:id',
    summary: 'End one of my sessions',
    auth: 'user',
    params: params({ id: pathId('session') }),
    responses: { 200: answer({ revoked: constant(true) }) },
  },
  revokeOtherSessions: {
    method: 'POST',
    path: '/console/api/me/sessions/revoke-others',
    summary: 'End every session but this one',
    auth: 'user',
    responses: { 200: answer({ revoked: sessionsEnded }) },
  },
  revokeAllSessions: {
    method: 'POST',
    path: '/console/api/me/sessions/revoke-all',
    summary: 'Sign out everywhere: end every session, this one included',
    auth: 'user',
    responses: { 200: answer({ revoked: sessionsEnded }) },
  },
  security: {
    method: 'GET',
    path: '/console/api/me/security',
    summary: '2FA state, recovery codes left, email verification, mail language',
    auth: 'user',
    responses: {
      200: answer({
        email_verified: rBool,
        locale: orNull(rStr),
        two_factor: answer({ enabled: rBool, enabled_at: orNull(rTime), recovery_codes_left: rInt }),
        two_factor_required: rBool,
      }),
    },
  },
  updateSecurity: {
    method: 'PATCH',
    path: '/console/api/me/security',
    summary: 'Set the language of account mails',
    auth: 'user',
    body: body({ locale: oneOf(['zh', 'en']) }),
    responses: { 200: answer({ locale: oneOf(['zh', 'en']) }) },
  },
  twoFactorSetup: {
    method: 'POST',
    path: '/console/api/me/2fa/setup',
    summary: 'Start 2FA enrolment (password required): TOTP secret, otpauth URI and its QR code (SVG)',
    auth: 'user',
    body: body({ password: text(200) }),
    responses: {
      200: answer({
        secret: rStr,
        otpauth_uri: rStr,
        qr_svg: Type.String({ description: 'the otpauth URI as a QR code, an SVG document to scan' }),
      }),
    },
    errors: ['WRONG_PASSWORD'],
  },
  twoFactorEnable: {
    method: 'POST',
    path: '/console/api/me/2fa/enable',
    summary: 'Confirm enrolment with a first code; answers 10 recovery codes, shown once',
    auth: 'user',
    body: body({ code }),
    responses: { 200: answer({ enabled: constant(true), recovery_codes: recoveryCodes }) },
    errors: ['WRONG_2FA_CODE'],
  },
  twoFactorRecoveryCodes: {
    method: 'POST',
    path: '/console/api/me/2fa/recovery-codes',
    summary: 'Replace the recovery codes (a code required)',
    auth: 'user',
    body: body({ code }),
    responses: { 200: answer({ recovery_codes: recoveryCodes }) },
    errors: ['WRONG_2FA_CODE'],
  },
  twoFactorDisable: {
    method: 'POST',
    path: '/console/api/me/2fa/disable',
    summary: 'Turn 2FA off (password and a code required)',
    auth: 'user',
    body: body({ password: text(200), code }),
    responses: { 200: answer({ enabled: constant(false) }) },
    errors: ['WRONG_PASSWORD', 'WRONG_2FA_CODE', 'TWO_FACTOR_REQUIRED'],
  },
});
