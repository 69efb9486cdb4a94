// A failed call in words: what happened (the server's message, already in the UI language because the console
// sends Accept-Language), what to do about it (the catalogue's hint for the code), and the raw response body
// only on demand, behind a native <details> toggle.
import { h } from './dom.js';
import { errorInfo, t } from './i18n/index.js';

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
          h('span', { attrs: { 'data-testid': 'dbg-error-hint' } }, info.hint),
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
