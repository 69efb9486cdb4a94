// Pretty JSON with colours for keys, strings, numbers and literals. Built from text nodes inside spans
// (classes only), so a hostile string in a response is shown, never run.
import { h } from './dom.js';

const TOKEN = /("(?:\\.|[^"\\])*")(\s*:)?|\b(true|false|null)\b|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/g;

export function jsonView(text: string, testId?: string): HTMLElement {
  const pre = h('pre', { class: 'code json', attrs: { 'data-testid': testId, tabindex: 0 } });
  let last = 0;
  for (const m of text.matchAll(TOKEN)) {
    const at = m.index ?? 0;
    if (at > last) pre.append(text.slice(last, at));
    if (m[1] !== undefined) {
      pre.append(h('span', { class: m[2] ? 'j-key' : 'j-str' }, m[1]));
      if (m[2]) pre.append(m[2]);
    } else if (m[3] !== undefined) pre.append(h('span', { class: 'j-lit' }, m[3]));
    else pre.append(h('span', { class: 'j-num' }, m[4] ?? ''));
    last = at + m[0].length;
  }
  if (last < text.length) pre.append(text.slice(last));
  return pre;
}
