// Admin account tools: reset a user's password (chosen or generated, shown once; every session ends), turn off
// a user's 2FA when they lost the device, read the mail outbox, and send a test mail to check SMTP settings.
import type Router from '@koa/router';
import { generatePassword } from '../../accounts/generated-password.js';
import { renderMail } from '../../accounts/mail/templates.js';
import { setPassword } from '../../accounts/password-change.js';
import { hashPassword, passwordWeakness } from '../../accounts/passwords.js';
import { disableTwoFactor } from '../../accounts/totp.js';
import { findUserById, isValidEmail, normaliseEmail } from '../../accounts/users.js';
import { ApiError } from '../../http/errors.js';
import type { Services } from '../../services.js';
import { audit } from './audit.js';
import { requireAdmin } from './auth.js';
import { bodyOf, idParam, invalid, queryInt, reqString } from './input.js';
import { passwordGuardOf } from './password-guard.js';
import { iso } from './present.js';

export function adminAccountRoutes(router: Router, s: Services): void {
  const db = s.store.db;
  const guard = passwordGuardOf(s);

  router.post('/console/api/admin/users/:id/password', requireAdmin(s), async (ctx) => {
    const id = idParam(ctx.params.id, 'user');
    const b = bodyOf(ctx, ['password']);
    const chosen = b.password === undefined ? null : reqString(b, 'password', 200);
    if (chosen !== null) {
      const weak = passwordWeakness(chosen);
      if (weak) throw invalid(`Weak password: ${weak}.`);
    }
    const user = await findUserById(db, id);
    if (!user) throw new ApiError('RESOURCE_NOT_FOUND', `There is no user ${id}.`);
    const password = chosen ?? generatePassword();
    const hash = await guard.gated(ctx, () => hashPassword(password), true);
    const signedOut = await setPassword(db, user.id, hash, null);
    await audit(ctx, s, {
      action: 'user.password_reset',
      targetType: 'user',
      targetId: user.id,
      subjectUserId: user.id,
      detail: { generated: chosen === null, signed_out_sessions: signedOut },
    });
    ctx.body = { reset: true, signed_out_sessions: signedOut, ...(chosen === null ? { password } : {}) };
  });

  router.post('/console/api/admin/users/:id/2fa/disable', requireAdmin(s), async (ctx) => {
    const id = idParam(ctx.params.id, 'user');
    if (!(await findUserById(db, id))) throw new ApiError('RESOURCE_NOT_FOUND', `There is no user ${id}.`);
    await disableTwoFactor(db, id);
    await audit(ctx, s, { action: 'user.2fa_disable', targetType: 'user', targetId: id, subjectUserId: id });
    ctx.body = { enabled: false };
  });

  router.get('/console/api/admin/mail', requireAdmin(s), async (ctx) => {
    const limit = queryInt(ctx, 'limit', 1, 200, 50);
    const before = queryInt(ctx, 'before', 1, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
    const rows = await db
      .selectFrom('mail_outbox')
      .selectAll()
      .where('id', '<', before)
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
    ctx.body = {
      transport: s.mailer.transport,
      items: rows.map((r) => ({
        id: Number(r.id),
        to: r.to_addr,
        subject: r.subject,
        text: r.text_body,
        transport: r.transport,
        status: r.status,
        error: r.error,
        created_at: iso(r.created_at),
      })),
      next_before: rows.length === limit ? Number(rows[rows.length - 1].id) : null,
    };
  });

  router.post('/console/api/admin/mail/test', requireAdmin(s), async (ctx) => {
    const to = normaliseEmail(reqString(bodyOf(ctx, ['to']), 'to', 254));
    if (!isValidEmail(to)) throw invalid("'to' is not a valid email address.");
    const result = await s.mailer.send(renderMail('test', 'en', { email: to }));
    // Admins are operators: the server's answer helps them fix the settings.
    if (!result.ok)
      throw new ApiError(
        'MAIL_FAILED',
        `The test mail was not sent (${result.transport}): ${result.error.slice(0, 300)}`,
      );
    ctx.body = { sent: true, transport: result.transport, id: result.id };
  });
}
