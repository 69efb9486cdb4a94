// GET / (and HEAD /): the public front page. Rendered once per config load and language and kept with that
// load's registry (a WeakMap: a reload's new registry starts a fresh cache, the old one is collected with it),
// so a request costs a map look-up; an ETag lets a returning visitor's browser skip the body.
import { createHash } from 'node:crypto';
import type Router from '@koa/router';
import type { Context } from 'koa';
import { type Locale, localeFromAcceptLanguage, parseLocale } from '../../accounts/locale.js';
import { trialCreditOf } from '../../billing/payments/trial-credit.js';
import type { StatusService } from '../../health/status-service.js';
import type { Registry } from '../../registry/registry.js';
import type { Services } from '../../services.js';
import { FRONT_CSP } from './front-css.js';
import { renderFrontPage, STATUS_SLOT, statusLink } from './front-html.js';
import { statusText } from './status-text.js';

interface Page {
  html: string;
  etag: string;
}

/** ?lang=zh|en wins (the page's own switch), then Accept-Language, then Chinese. */
export function frontLang(ctx: Context): { lang: Locale; explicit: boolean } {
  const asked = typeof ctx.query.lang === 'string' ? parseLocale(ctx.query.lang) : null;
  if (asked) return { lang: asked, explicit: true };
  return { lang: localeFromAcceptLanguage(ctx.get('accept-language')) ?? 'zh', explicit: false };
}

/**
 * The headers of a server-rendered public page (`/`, `/status`): its own CSP, no framing or sniffing, and a cache
 * that varies by the visitor's languages unless ?lang= chose one.
 */
export function publicPageHeaders(ctx: Context, csp: string, lang: Locale, explicit: boolean, maxAge: number): void {
  ctx.set('Content-Security-Policy', csp);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Referrer-Policy', 'no-referrer');
  if (!explicit) ctx.set('Vary', 'Accept-Language');
  ctx.set('Cache-Control', `public, max-age=${maxAge}`);
  ctx.set('Content-Language', lang === 'zh' ? 'zh-CN' : 'en');
}

/** The status line for the header: the overall state from the last report (never waits for the database). */
function statusLine(status: StatusService | undefined, lang: Locale): { html: string; state: string } {
  const report = status?.peek();
  const state = report?.state ?? 'unknown';
  const x = statusText(lang);
  return { html: statusLink(state, lang, x.frontLink, x.overall[state]), state };
}

/** The trial a visitor can still get: none when sign-up is closed. */
export function offeredTrial(s: Services, registry: Registry): number {
  return s.settings.accounts.registrationOpen ? trialCreditOf(registry, s.settings.payments) : 0;
}

export function frontPageRoute(router: Router, s: Services, status?: StatusService): void {
  const cache = new WeakMap<Registry, Map<Locale, Page>>();
  const pageFor = (registry: Registry, lang: Locale): Page => {
    let pages = cache.get(registry);
    if (!pages) cache.set(registry, (pages = new Map()));
    let page = pages.get(lang);
    if (!page) {
      const html = renderFrontPage(registry.config, lang, s.settings.accounts.publicUrl, offeredTrial(s, registry));
      page = { html, etag: `"${createHash('sha256').update(html).digest('base64url').slice(0, 27)}"` };
      pages.set(lang, page);
    }
    return page;
  };

  router.get('/', (ctx) => {
    const { lang, explicit } = frontLang(ctx);
    const page = pageFor(s.registry.current, lang);
    // A short max-age so a price change shows soon.
    publicPageHeaders(ctx, FRONT_CSP, lang, explicit, 60);
    // The dot changes without a config load: it is part of the validator.
    const line = statusLine(status, lang);
    const etag = `${page.etag.slice(0, -1)}-${line.state}"`;
    ctx.set('ETag', etag);
    ctx.type = 'text/html; charset=utf-8';
    if (ctx.get('if-none-match') === etag) {
      ctx.status = 304;
      return;
    }
    ctx.body = page.html.replace(STATUS_SLOT, line.html);
  });
}
