// The public status page (/status) as one HTML string, from the status report (core/health/status-view.ts): the
// overall state, then per operation its state, since when, the last success, the last failure's class and field,
// its platforms, and bars over the chosen window (links switch it: the page runs no script).
import type { Locale } from '../../accounts/locale.js';
import type { OperationView, StatusReport, WindowName } from '../../health/status-view.js';
import { STATUS_CSS } from './status-css.js';
import { type StatusText, statusText } from './status-text.js';

const ESC: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => ESC[c]);

/** A time as the reader's side of the world reads it: China time in Chinese, UTC in English. */
export function when(iso: string | null, lang: Locale, x: StatusText): string {
  if (!iso) return x.never;
  const ms = Date.parse(iso) + (lang === 'zh' ? 8 * 3_600_000 : 0);
  const t = new Date(ms).toISOString().slice(0, 16).replace('T', ' ');
  return lang === 'zh' ? `${t}（北京时间）` : `${t} UTC`;
}

function opCard(op: OperationView, lang: Locale, x: StatusText, window: WindowName): string {
  const bars = op.bars[window];
  const failure =
    op.last_failure_at && op.last_class
      ? `<span>${esc(x.lastFailure)}: <b>${esc(when(op.last_failure_at, lang, x))}</b> · ${esc(x.classes[op.last_class] ?? op.last_class)}${op.last_field ? ` (${esc(x.field)} <code>${esc(op.last_field)}</code>)` : ''}</span>`
      : '';
  const chips = op.platforms.length
    ? `<ul class="chips">${op.platforms
        .map(
          (p) =>
            `<li data-platform="${esc(p.platform)}" data-state="${p.state}"><span class="dot s-${p.state}"></span>${esc(x.platforms[p.platform] ?? p.platform)} · ${esc(x.state[p.state])}${p.state !== 'ok' && p.last_class ? ` · ${esc(x.classes[p.last_class] ?? p.last_class)}` : ''}</li>`,
        )
        .join('')}</ul>`
    : '';
  const cells = bars
    .map(
      (b) =>
        `<span class="b-${b.state}" title="${esc(`${when(b.start, lang, x)} · ${x.bar[b.state]}${b.total ? ` (${b.ok}/${b.total})` : ''}`)}"></span>`,
    )
    .join('');
  return (
    `<section class="op" data-op="${esc(op.code)}" data-state="${op.state}">` +
    `<h2>${esc(op.name[lang])} <code>/api/${esc(op.code)}</code><span class="badge s-${op.state}">${esc(x.state[op.state])}</span></h2>` +
    `<div class="facts"><span>${esc(x.since)}: <b>${esc(when(op.since, lang, x))}</b></span>` +
    `<span>${esc(x.lastSuccess)}: <b>${esc(when(op.last_success_at, lang, x))}</b></span>${failure}</div>` +
    chips +
    `<div class="bars" aria-label="${esc(x.windows[window])}">${cells}</div>` +
    `<div class="axis"><span>${esc(when(bars[0]?.start ?? null, lang, x))}</span><span>${esc(x.windows[window])}</span></div>` +
    '</section>'
  );
}

export function renderStatusPage(report: StatusReport, lang: Locale, window: WindowName): string {
  const x = statusText(lang);
  const other: Locale = lang === 'zh' ? 'en' : 'zh';
  const tabs = (['24h', '7d', '30d'] as const)
    .map(
      (w) =>
        `<a href="/status?lang=${lang}&amp;window=${w}"${w === window ? ' aria-current="page"' : ''}>${esc(x.windows[w])}</a>`,
    )
    .join('');
  return [
    '<!doctype html>',
    `<html lang="${x.htmlLang}"><head><meta charset="utf-8">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${esc(x.title)}</title>`,
    `<link rel="alternate" hreflang="${other === 'zh' ? 'zh-CN' : 'en'}" href="/status?lang=${other}">`,
    `<link rel="alternate" type="application/json" href="/status.json">`,
    `<style>${STATUS_CSS}</style></head><body><div class="wrap">`,
    `<header class="top"><a class="brand" href="/?lang=${lang}"><span class="logo">T</span>Tollgate</a><span class="spacer"></span>`,
    `<a class="plain" href="/?lang=${lang}">${esc(x.home)}</a>`,
    `<a class="lang" href="/status?lang=${other}&amp;window=${window}" hreflang="${other}">${esc(x.otherLang)}</a></header>`,
    `<main><h1>${esc(x.title.split(' · ')[0])}</h1><p class="lead">${esc(x.lead)}</p>`,
    `<div class="banner s-${report.state}" data-overall="${report.state}"><span class="dot"></span>${esc(x.overall[report.state])}</div>`,
    `<nav class="windows">${tabs}</nav>`,
    report.operations.length
      ? report.operations.map((op) => opCard(op, lang, x, window)).join('')
      : `<p>${esc(x.noOperations)}</p>`,
    `</main><footer><span>${esc(x.updated)} ${esc(when(report.updated_at, lang, x))}</span><a href="/status.json">${esc(x.json)}</a></footer></div></body></html>`,
  ].join('\n');
}
