// Small building blocks shared by the pages: cards, tables, fields, buttons with busy state, notices, copy.

import { ApiFailure } from './api.js';
import { type Child, clear, h } from './dom.js';
import { errorInfo, t } from './i18n/index.js';

export function card(title: Child, ...children: Child[]): HTMLElement {
  return h('section', { class: 'card' }, title ? h('h2', { class: 'card-title' }, title) : null, ...children);
}

export function pageHeader(title: string, subtitle?: string, ...actions: Child[]): HTMLElement {
  return h(
    'header',
    { class: 'page-head' },
    h('div', null, h('h1', null, title), subtitle ? h('p', { class: 'muted' }, subtitle) : null),
    actions.length ? h('div', { class: 'page-actions' }, ...actions) : null,
  );
}

export function stat(label: string, value: Child, sub?: Child, id?: string): HTMLElement {
  return h(
    'div',
    { class: 'stat', attrs: { 'data-stat': id } },
    h('div', { class: 'stat-label' }, label),
    h('div', { class: 'stat-value' }, value),
    sub ? h('div', { class: 'stat-sub' }, sub) : null,
  );
}

/**
 * A cell that is a short text (a name, a state, an amount) is kept on one line: Chinese may break between any two
 * characters, so a column squeezed by a long neighbour showed "探针" or "手机号归属地" one character per line.
 * Longer texts still wrap; the table scrolls sideways when the short ones need the room.
 */
function shortText(c: Child): boolean {
  return (typeof c === 'string' || typeof c === 'number') && String(c).length <= 12;
}

/** A table that scrolls sideways inside its card on narrow screens instead of widening the page. */
export function table(headers: string[], rows: Child[][], empty?: string, testId?: string): HTMLElement {
  if (rows.length === 0)
    return h('p', { class: 'empty', attrs: { 'data-testid': testId } }, empty ?? t('common.empty'));
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { attrs: { 'data-testid': testId } },
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          headers.map((x) => h('th', null, x)),
        ),
      ),
      h(
        'tbody',
        null,
        rows.map((r) =>
          h(
            'tr',
            null,
            r.map((c) => h('td', shortText(c) ? { class: 'nowrap' } : null, c)),
          ),
        ),
      ),
    ),
  );
}

export function field(label: string, control: HTMLElement, hint?: Child, required = false): HTMLElement {
  return h(
    'label',
    { class: 'field' },
    h(
      'span',
      { class: 'field-label' },
      label,
      required ? h('span', { class: 'req', attrs: { title: t('common.required') } }, ' *') : null,
    ),
    control,
    hint ? h('span', { class: 'hint' }, hint) : null,
  );
}

export function input(
  name: string,
  attrs: Record<string, string | number | boolean | undefined> = {},
): HTMLInputElement {
  return h('input', { attrs: { name, id: `f-${name}`, type: 'text', ...attrs } });
}

export function select(name: string, options: Array<[string, string]>, value?: string): HTMLSelectElement {
  return h(
    'select',
    { attrs: { name, id: `f-${name}` } },
    options.map(([v, label]) => h('option', { attrs: { value: v, selected: v === value } }, label)),
  );
}

export function button(
  label: string,
  onClick: (ev: MouseEvent) => void | Promise<void>,
  kind = 'btn',
  attrs: Record<string, string> = {},
): HTMLButtonElement {
  const b: HTMLButtonElement = h(
    'button',
    { class: kind, attrs: { type: 'button', ...attrs }, on: { click: (ev) => void busy(b, () => onClick(ev)) } },
    label,
  );
  return b;
}

/** Disables the control while the action runs, so a double click does not order twice. */
export async function busy(el: HTMLButtonElement, fn: () => void | Promise<void>): Promise<void> {
  if (el.disabled) return;
  el.disabled = true;
  el.classList.add('busy');
  try {
    await fn();
  } finally {
    el.disabled = false;
    el.classList.remove('busy');
  }
}

/**
 * A form whose submit runs `send` once at a time (the submit button is busy meanwhile) and shows a failure in
 * `msg`: the one shape every console form shares. A new attempt takes away the failure of the last one (a
 * success message `send` shows stays).
 */
export function actionForm(
  cls: string,
  submit: HTMLButtonElement,
  msg: { error(err: unknown): void; clearError?(): void },
  send: (form: HTMLFormElement) => Promise<void>,
  ...children: Child[]
): HTMLFormElement {
  const form: HTMLFormElement = h(
    'form',
    {
      class: cls,
      on: {
        submit: (ev) => {
          ev.preventDefault();
          void busy(submit, async () => {
            try {
              msg.clearError?.();
              await send(form);
            } catch (err) {
              msg.error(err);
            }
          });
        },
      },
    },
    ...children,
  );
  return form;
}

export function badge(text: string, kind: 'ok' | 'warn' | 'err' | 'info' | 'muted' = 'info'): HTMLElement {
  return h('span', { class: `badge badge-${kind}` }, text);
}

export function errorText(err: unknown): string {
  if (err instanceof ApiFailure) {
    // The server already wrote the message in the UI's language (api.ts sends Accept-Language); the catalogue
    // covers answers without one, and NETWORK (no answer at all) gets its meaning before the browser's text.
    if (err.code === 'NETWORK') return `${t('err.NETWORK')}（${err.message}）`;
    return err.message || errorInfo(err.code)?.message || err.code;
  }
  return err instanceof Error ? err.message : String(err);
}

export function notice(kind: 'ok' | 'warn' | 'err' | 'info', ...children: Child[]): HTMLElement {
  return h(
    'div',
    { class: `notice notice-${kind}`, attrs: { role: kind === 'err' ? 'alert' : 'status' } },
    ...children,
  );
}

/** A slot that shows the outcome of an action: ok or error, replaced by the next one. */
export function messageSlot(): {
  el: HTMLElement;
  ok(text: Child): void;
  /** The failure's text, and `next` after it: what the reader can do about it (a link). */
  error(err: unknown, next?: Child): void;
  clear(): void;
  clearError(): void;
} {
  const el = h('div', { class: 'msg-slot', attrs: { 'aria-live': 'polite' } });
  return {
    el,
    ok: (text) => (clear(el, notice('ok', text)), reveal(el)),
    error: (err, next) => (
      clear(el, next ? notice('err', errorText(err), ' ', next) : notice('err', errorText(err))), reveal(el)
    ),
    clear: () => clear(el),
    /** A new attempt: the failure of the last one no longer describes anything. */
    clearError: () => void (el.querySelector('.notice-err') && clear(el)),
  };
}

/**
 * On a phone the message of a long form lands below the fold: scroll it into view ('nearest' leaves the page
 * still when it is already visible). It stays in the flow of the page, never floating over other content.
 */
export function reveal(el: HTMLElement): void {
  const r = el.getBoundingClientRect();
  if (r.top < 0 || r.bottom > window.innerHeight) el.scrollIntoView({ block: 'nearest' });
}

export async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // Clipboard API refused (insecure origin, permissions): select a hidden textarea and copy the old way.
    const ta = h('textarea', { class: 'offscreen', attrs: { readonly: true } });
    ta.value = text;
    document.body.appendChild(ta);
    ta.select();
    const ok = document.execCommand('copy');
    ta.remove();
    return ok;
  }
}

export function copyButton(getText: () => string, label = t('common.copy')): HTMLButtonElement {
  const b: HTMLButtonElement = h(
    'button',
    {
      class: 'btn btn-small btn-ghost',
      attrs: { type: 'button' },
      on: {
        click: () => {
          void copyText(getText()).then((ok) => {
            b.textContent = ok ? t('common.copied') : t('common.copyFailed');
            setTimeout(() => (b.textContent = label), 1500);
          });
        },
      },
    },
    label,
  );
  return b;
}

export function loading(): HTMLElement {
  return h('div', { class: 'loading', attrs: { role: 'status' } }, t('common.loading'));
}

export function tabs<K extends string>(items: Array<[K, string]>, active: K, onPick: (k: K) => void): HTMLElement {
  const bar = h('div', { class: 'tabs', attrs: { role: 'tablist' } });
  const render = (current: K): void =>
    clear(
      bar,
      items.map(([k, label]) =>
        h(
          'button',
          {
            class: k === current ? 'tab active' : 'tab',
            attrs: { type: 'button', role: 'tab', 'aria-selected': k === current ? 'true' : 'false', 'data-tab': k },
            on: { click: () => (render(k), onPick(k)) },
          },
          label,
        ),
      ),
    );
  render(active);
  return bar;
}
