// Tiny DOM helpers: elements are built with createElement and text nodes only (never innerHTML), so data
// from the server can never become markup, and nothing needs an inline style or script (strict CSP).
type Handler<E extends keyof HTMLElementEventMap> = (ev: HTMLElementEventMap[E]) => void;
export type Handlers = { [E in keyof HTMLElementEventMap]?: Handler<E> };
export type Child = Node | string | number | null | undefined | false | Child[];
export type AttrValue = string | number | boolean | null | undefined;

export interface Props {
  class?: string;
  on?: Handlers;
  /** Set as properties, not attributes: they reflect the live state of form controls. */
  value?: string;
  checked?: boolean;
  attrs?: Record<string, AttrValue>;
}

export function append(parent: Node, ...children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(parent, ...c);
    else parent.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
  }
}

function setAttrs(el: Element, attrs: Record<string, AttrValue>): void {
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    el.setAttribute(k, v === true ? '' : String(v));
  }
}

/** h('button', { class: 'btn', on: { click } }, t('save')) */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props?: Props | null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (props) {
    if (props.class) el.className = props.class;
    if (props.attrs) setAttrs(el, props.attrs);
    if (props.on) {
      for (const [name, fn] of Object.entries(props.on)) el.addEventListener(name, fn as EventListener);
    }
    if (props.value !== undefined) (el as unknown as { value: string }).value = props.value;
    if (props.checked !== undefined) (el as unknown as { checked: boolean }).checked = props.checked;
  }
  append(el, ...children);
  return el;
}

const SVG_NS = 'http://www.w3.org/2000/svg';

export function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Record<string, AttrValue> = {},
  ...children: Child[]
): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG_NS, tag);
  setAttrs(el, attrs);
  append(el, ...children);
  return el;
}

export function clear(el: Element, ...children: Child[]): void {
  el.replaceChildren();
  append(el, ...children);
}

/** Reads a form control's current value by name. */
export function fieldValue(form: HTMLFormElement, name: string): string {
  const el = form.elements.namedItem(name);
  return el instanceof HTMLInputElement || el instanceof HTMLSelectElement || el instanceof HTMLTextAreaElement
    ? el.value.trim()
    : '';
}
