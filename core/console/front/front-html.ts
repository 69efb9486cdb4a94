// The public front page (/) as one HTML string: what is sold and at what price (operations, plans, packages
// from operations.yaml), a call to copy, and links to the docs and the console. No script: it reads the same
// with JavaScript off and needs nothing but its own inline stylesheet (front-css.ts).
import type { Locale } from '../../accounts/locale.js';
import type { OperationConfig, OperationsConfig, PackageConfig, PlanConfig } from '../../config/operations-config.js';
import { toToken } from '../../kernel/money.js';
import { FRONT_CSS } from './front-css.js';
import { type FrontText, frontText } from './front-text.js';

/** Where the front route puts the status dot (statusLink). */
export const STATUS_SLOT = '<!--status-->';

const ESC: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => ESC[c]);

const count = new Intl.NumberFormat('en-US');
/** TOKEN amounts as written in operations.yaml: up to 6 decimals, no float noise, thousands grouped. */
const amount = (micro: number): string =>
  new Intl.NumberFormat('en-US', { maximumFractionDigits: 6 }).format(toToken(micro));

function operationCard(op: OperationConfig, x: FrontText, lang: Locale): string {
  const text = op.text[lang];
  const off = !op.availability.available;
  return (
    `<article class="card${off ? ' off' : ''}" data-op="${esc(op.code)}">` +
    `<h3>${esc(text.name)}${off ? ` <span class="badge">${esc(x.unavailable)}</span>` : ''}</h3>` +
    `<code>GET /api/${esc(op.code)}</code>` +
    `<p>${esc(text.description)}</p>` +
    `<div class="price">${amount(op.priceMicro)} TOKEN <small>${esc(x.perCall)}</small></div>` +
    `<p class="per1000">${esc(x.per1000(amount(op.priceMicro * 1000)))}</p>` +
    '</article>'
  );
}

function planCard(p: PlanConfig, x: FrontText, lang: Locale): string {
  const line = x.planLine({
    days: p.durationDays,
    calls: count.format(p.quota.callsPerDay),
    concurrency: p.quota.concurrency,
    cacheFree: p.quota.cacheFree,
    grant: amount(p.grantMicro),
  });
  return `<article class="card" data-plan="${esc(p.id)}"><h3>${esc(p.text[lang].name)}</h3><p>${esc(line)}</p><div class="price">¥${amount(p.priceMicro)} <small>${esc(x.perPeriod(p.durationDays))}</small></div></article>`;
}

function packageCard(p: PackageConfig, x: FrontText, lang: Locale): string {
  return `<article class="card" data-package="${esc(p.id)}"><h3>${esc(p.text[lang].name)}</h3><p>${esc(x.packageLine(amount(p.tokensMicro)))}</p><div class="price">¥${amount(p.priceMicro)}</div></article>`;
}

/** The first sellable operation whose example is plain values: its GET call and the answer it gets. */
function tryIt(ops: OperationConfig[], base: string): { curl: string; answer: string } | null {
  for (const op of ops) {
    if (!op.availability.available || !op.example) continue;
    const values = Object.entries(op.example);
    if (!values.every(([, v]) => ['string', 'number', 'boolean'].includes(typeof v))) continue;
    // URLSearchParams percent-encodes every shell-special character, so the URL is safe inside double quotes.
    const query = new URLSearchParams(values.map(([k, v]): [string, string] => [k, String(v)])).toString();
    const curl = `curl "${base}/api/${op.code}${query ? `?${query}` : ''}" \\\n  -H "X-API-Key: sk_your_key"`;
    const envelope = {
      success: true,
      data: op.responseExample ?? {},
      deducted: toToken(op.priceMicro),
      remaining: toToken(10_000_000 - op.priceMicro),
      cached: false,
      request_id: 'req_…',
    };
    return { curl, answer: JSON.stringify(envelope, null, 2) };
  }
  return null;
}

/** The header's link to /status with a dot in the overall state's colour (none before the first result). */
export function statusLink(
  state: 'ok' | 'degraded' | 'down' | 'unknown',
  lang: Locale,
  label: string,
  title: string,
): string {
  return `<a class="status s-${state}" href="/status?lang=${lang}" title="${esc(title)}" data-status="${state}"><span class="sdot"></span>${esc(label)}</a>`;
}

/** `trialMicro`: what a new account gets at sign-up (0: no offer is shown). */
export function renderFrontPage(config: OperationsConfig, lang: Locale, publicUrl: string, trialMicro = 0): string {
  const x = frontText(lang);
  const ops = config.operations.filter((o) => o.enabled);
  const other: Locale = lang === 'zh' ? 'en' : 'zh';
  const example = tryIt(ops, publicUrl);
  // Links into the console carry this page's language, so a visitor who reads it in English signs up in English.
  const con = (path: string): string => `/console/${path}?lang=${lang}`;
  const section = (id: string, title: string, note: string, body: string): string =>
    `<section id="${id}"><h2>${esc(title)}</h2>${note ? `<p class="note">${esc(note)}</p>` : ''}${body}</section>`;
  return [
    '<!doctype html>',
    `<html lang="${x.htmlLang}"><head><meta charset="utf-8">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${esc(x.title)}</title>`,
    `<meta name="description" content="${esc(x.lead)}">`,
    `<link rel="alternate" hreflang="${other === 'zh' ? 'zh-CN' : 'en'}" href="/?lang=${other}">`,
    `<style>${FRONT_CSS}</style></head><body><div class="wrap">`,
    `<header class="top"><a class="brand" href="/"><span class="logo">T</span>Tollgate</a><span class="spacer"></span>`,
    // The status line is spliced in per request (front-route.ts): the rest of the page is cached per config load.
    STATUS_SLOT,
    `<a class="plain" href="${con('docs')}">${esc(x.ctaDocs)}</a><a class="plain" href="${con('login')}">${esc(x.ctaLogin)}</a>`,
    `<a class="lang" href="/?lang=${other}" hreflang="${other}" lang="${other === 'zh' ? 'zh-CN' : 'en'}">${esc(x.otherLang)}</a></header>`,
    `<main><div class="hero"><h1>${esc(x.tagline)}</h1><p>${esc(x.lead)}</p>`,
    `<div class="cta"><a class="btn btn-primary" href="${con('register')}">${esc(x.ctaStart)}</a><a class="btn" href="${con('docs')}">${esc(x.ctaDocs)}</a></div>` +
      (trialMicro > 0 ? `<p class="offer" data-offer>${esc(x.trialOffer(amount(trialMicro)))}</p>` : '') +
      '</div>',
    section(
      'prices',
      x.pricesTitle,
      x.pricesNote,
      ops.length
        ? `<div class="grid">${ops.map((o) => operationCard(o, x, lang)).join('')}</div>`
        : `<p>${esc(x.noOperations)}</p>`,
    ),
    config.plans.length
      ? section(
          'plans',
          x.plansTitle,
          x.plansNote,
          `<div class="grid">${config.plans.map((p) => planCard(p, x, lang)).join('')}</div>`,
        )
      : '',
    config.packages.length
      ? section(
          'packages',
          x.packagesTitle,
          x.packagesNote,
          `<div class="grid">${config.packages.map((p) => packageCard(p, x, lang)).join('')}</div>`,
        )
      : '',
    example
      ? section(
          'try',
          x.tryTitle,
          x.tryNote,
          `<pre data-example="curl">${esc(example.curl)}</pre><p class="note">${esc(x.tryAnswer)}</p><pre data-example="answer">${esc(example.answer)}</pre>`,
        )
      : '',
    section(
      'next',
      x.linksTitle,
      '',
      `<ul class="links"><li><a href="${con('docs')}">${esc(x.linkDocs)}</a></li><li><a href="/openapi.json">${esc(x.linkOpenapi)}</a></li>` +
        `<li><a href="${con('')}">${esc(x.linkConsole)}</a></li><li><a href="${con('register')}">${esc(x.linkRegister)}</a></li></ul>`,
    ),
    `</main><footer>${esc(x.footer)}</footer></div></body></html>`,
  ].join('\n');
}
