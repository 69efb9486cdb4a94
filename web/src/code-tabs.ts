// Code examples as tabs (curl, JavaScript, Python, PHP, Go, Java), each with a copy button. The chosen
// language is remembered for the page's lifetime, so switching operations keeps the reader's language.

import { CODE_LANG_LABELS, CODE_LANGS, type CodeLang, codeExamples, type ExampleRequest } from './codegen.js';
import { clear, h } from './dom.js';
import { t } from './i18n/index.js';
import { copyButton, tabs } from './ui.js';

let chosen: CodeLang = 'curl';

export interface CodeTabs {
  el: HTMLElement;
  update(r: ExampleRequest): void;
}

export function createCodeTabs(initial: ExampleRequest): CodeTabs {
  let examples = codeExamples(initial);
  const pre = h('pre', { class: 'code', attrs: { 'data-testid': 'code-example', tabindex: 0 } });
  const langLabel = h('span', { class: 'muted small' });
  const show = (): void => {
    clear(pre, examples[chosen]);
    pre.setAttribute('data-lang', chosen);
    langLabel.textContent = CODE_LANG_LABELS[chosen];
  };
  const bar = tabs(
    CODE_LANGS.map((l) => [l, CODE_LANG_LABELS[l]] as [CodeLang, string]),
    chosen,
    (l) => {
      chosen = l;
      show();
    },
  );
  const copy = copyButton(() => examples[chosen], t('common.copyCode'));
  copy.setAttribute('data-testid', 'copy-code');
  show();
  return {
    el: h('div', { class: 'code-tabs' }, h('div', { class: 'code-bar' }, bar, copy), pre),
    update(r) {
      examples = codeExamples(r);
      show();
    },
  };
}

export function codeTabs(r: ExampleRequest): HTMLElement {
  return createCodeTabs(r).el;
}
