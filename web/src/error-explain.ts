// A failed call in words: what happened (the server's message, already in the UI language because the console
// sends Accept-Language), what to do about it (the catalogue's hint for the code), and the raw response body
// only on demand, behind a native <details> toggle.
import { type Child, h } from './dom.js';
import { errorInfo, type MessageKey, t } from './i18n/index.js';
import { link } from './router.js';

/** Codes whose remedy is on a console page: the hint links there. */
const REMEDY_PAGE: Record<string, [path: string, name: MessageKey]> = {
  INSUFFICIENT_BALANCE: ['billing', 'nav.billing'],
};

/** What to do about an error code, with a link to the console page that does it; '' for an unknown code. */
export function hintView(code: string, testId?: string): Child {
  const info = errorInfo(code);
  if (!info) return '';
  const page = REMEDY_PAGE[code];
  return h(
    'span',
    { attrs: { 'data-testid': testId } },
    info.hint,
    page
      ? [
          ' ',
          h(
            'span',
            { attrs: { 'data-testid': testId ? `${testId}-link` : undefined } },
            link(page[0], `${t(page[1])} →`),
          ),
        ]
      : null,
  );
}

export interface FailureEnvelope {
  error?: { code: string; message: string };
}

export function explainFailure(status: number, parsed: FailureEnvelope | undefined, raw: HTMLElement): HTMLElement {
  const code = parsed?.error?.code;
  const info = code ? errorInfo(code) : undefined;
  const what = parsed?.error?.message || info?.message || t('debugger.notEnvelope', { status });
  return h(
    'div',
    { class: 'error-explain', attrs: { 'data-testid': 'dbg-error' } },
    h('p', { class: 'error-what' }, h('strong', { attrs: { 'data-testid': 'dbg-error-message' } }, what)),
    info
      ? h(
          'p',
          { class: 'error-hint' },
          h('span', { class: 'muted' }, t('debugger.whatToDo')),
          ' ',
          hintView(code ?? '', 'dbg-error-hint'),
        )
      : null,
    h(
      'details',
      { class: 'raw-body', attrs: { 'data-testid': 'dbg-raw' } },
      h('summary', null, t('debugger.showRaw')),
      raw,
    ),
  );
}
