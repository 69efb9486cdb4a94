// Account mails from console routes: the user's language (stored choice, else this request's Accept-Language,
// else English), links built on PUBLIC_URL, and the mailer's honest result.
import type { Context } from 'koa';
import { issueAccountToken, TOKEN_TTL_MS } from '../../accounts/account-tokens.js';
import { type Locale, localeFromAcceptLanguage } from '../../accounts/locale.js';
import type { MailResult } from '../../accounts/mail/mailer.js';
import { renderMail, type TemplateName } from '../../accounts/mail/templates.js';
import { securityOf } from '../../accounts/user-security.js';
import type { User } from '../../accounts/users.js';
import type { Services } from '../../services.js';

export async function mailLocale(s: Services, ctx: Context | null, userId: number): Promise<Locale> {
  const stored = (await securityOf(s.store.db, userId)).locale;
  if (stored === 'zh' || stored === 'en') return stored;
  return (ctx && localeFromAcceptLanguage(ctx.get('accept-language'))) || 'en';
}

export async function sendAccountMail(
  s: Services,
  ctx: Context | null,
  user: User,
  template: TemplateName,
  link?: string,
): Promise<MailResult> {
  const locale = await mailLocale(s, ctx, user.id);
  const msg = renderMail(template, locale, { email: user.email, link, minutes: TOKEN_TTL_MS.reset / 60_000 });
  const result = await s.mailer.send(msg);
  if (!result.ok)
    s.logger.warn('account mail failed', { template, user_id: user.id, mail_id: result.id, error: result.error });
  return result;
}

export function consoleLink(s: Services, page: 'reset' | 'verify', token: string): string {
  return `${s.settings.accounts.publicUrl}/console/${page}?token=${encodeURIComponent(token)}`;
}

export async function sendVerificationMail(s: Services, ctx: Context | null, user: User): Promise<MailResult> {
  const { token } = await issueAccountToken(s.store.db, user.id, 'verify');
  return sendAccountMail(s, ctx, user, 'verify', consoleLink(s, 'verify', token));
}

export async function sendResetMail(s: Services, ctx: Context | null, user: User): Promise<MailResult> {
  const { token } = await issueAccountToken(s.store.db, user.id, 'reset');
  return sendAccountMail(s, ctx, user, 'reset', consoleLink(s, 'reset', token));
}
