// History-API routing under /console/: every page has a real URL (the server answers index.html for all of
// them), links are plain <a href> so open-in-new-tab works, and same-tab clicks skip the reload.
import { type Child, h } from './dom.js';

export const BASE = '/console/';

export interface Route {
  /** Path below /console/ split on "/", e.g. ["docs", "phone"]. */
  parts: string[];
  query: URLSearchParams;
}

let renderFn: (r: Route) => void = () => {};

export function currentRoute(): Route {
  const rest = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) : '';
  return {
    parts: rest.split('/').filter(Boolean).map(decodeURIComponent),
    query: new URLSearchParams(location.search),
  };
}

export function navigate(path: string, replace = false): void {
  const url = BASE + path.replace(/^\//, '');
  if (replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  window.scrollTo(0, 0);
  renderFn(currentRoute());
}

export function rerender(): void {
  renderFn(currentRoute());
}

export function startRouter(render: (r: Route) => void): void {
  renderFn = render;
  window.addEventListener('popstate', () => renderFn(currentRoute()));
  document.addEventListener('click', (ev) => {
    if (ev.defaultPrevented || ev.button !== 0 || ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.altKey) return;
    const a = (ev.target as Element | null)?.closest?.('a');
    if (!a || a.target || a.hasAttribute('download')) return;
    const url = new URL(a.href, location.href);
    if (url.origin !== location.origin || !url.pathname.startsWith(BASE) || url.pathname.startsWith(`${BASE}api/`))
      return;
    ev.preventDefault();
    navigate(url.pathname.slice(BASE.length) + url.search);
  });
  renderFn(currentRoute());
}

export function link(path: string, ...children: Child[]): HTMLAnchorElement {
  return h('a', { attrs: { href: BASE + path.replace(/^\//, '') } }, ...children);
}
