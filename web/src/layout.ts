// The frame around every page: top bar (brand, balance, language, account) and the navigation. On a phone
// the side navigation becomes a scrollable strip under the top bar (see styles.css).

import { get, post } from './api.js';
import { clear, h } from './dom.js';
import { tokens } from './format.js';
import { getLang, type MessageKey, setLang, t } from './i18n/index.js';
import { attachPendingBadge } from './pending-badge.js';
import { revealActive } from './reveal-active.js';
import { link, navigate } from './router.js';
import { clearSession, getToken, getUser, isAdmin, updateUser } from './session.js';
import type { Me, Reply } from './types.js';

const NAV: Array<{ path: string; key: MessageKey; auth: boolean; admin?: boolean }> = [
  { path: '', key: 'nav.dashboard', auth: true },
  { path: 'keys', key: 'nav.keys', auth: true },
  { path: 'docs', key: 'nav.docs', auth: false },
  { path: 'debugger', key: 'nav.debugger', auth: true },
  { path: 'usage', key: 'nav.usage', auth: true },
  { path: 'billing', key: 'nav.billing', auth: true },
  { path: 'notify', key: 'nav.notify', auth: true },
  { path: 'security', key: 'nav.security', auth: true },
  { path: 'admin', key: 'nav.admin', auth: true, admin: true },
];

let me: Me | null = null;
const balanceEls = new Set<HTMLElement>();

/** /me, cached until something that moves money asks for a refresh. */
export async function loadMe(force = false): Promise<Me> {
  if (!me || force) {
    me = await get<Me>('me');
    updateUser(me.user);
    for (const el of balanceEls) if (el.isConnected) el.textContent = `${tokens(me.available)} TOKEN`;
  }
  return me;
}

export function forgetMe(): void {
  me = null;
}

export async function logout(): Promise<void> {
  try {
    if (getToken()) await post<Reply<'logout'>>('logout');
  } catch {
    // the token may already be invalid; the local session is cleared either way
  }
  clearSession();
  forgetMe();
  navigate('login');
}

function langSwitch(): HTMLElement {
  const other = getLang() === 'zh' ? 'en' : 'zh';
  return h(
    'button',
    {
      class: 'btn btn-small btn-ghost lang',
      attrs: { type: 'button', 'data-testid': 'lang-switch', lang: other, title: t('lang.switchTitle') },
      on: { click: () => setLang(other) },
    },
    t('lang.other'),
  );
}

export function authFrame(): { root: HTMLElement; main: HTMLElement } {
  const main = h('main', { class: 'auth-main' });
  const root = h(
    'div',
    { class: 'auth-page' },
    h(
      'div',
      { class: 'auth-top' },
      h('span', { class: 'brand' }, h('span', { class: 'logo' }, 'T'), 'Tollgate'),
      langSwitch(),
    ),
    main,
  );
  return { root, main };
}

export function shell(active: string): { root: HTMLElement; main: HTMLElement } {
  const user = getUser();
  const loggedIn = Boolean(getToken() && user);
  const balance = h(
    'span',
    { class: 'pill', attrs: { 'data-testid': 'balance-pill', title: t('dash.available') } },
    me ? `${tokens(me.available)} TOKEN` : '…',
  );
  balanceEls.add(balance);
  const nav = h(
    'nav',
    { class: 'sidenav', attrs: { 'aria-label': t('nav.label') } },
    NAV.filter((n) => (!n.auth || loggedIn) && (!n.admin || isAdmin())).map((n) => {
      const a = link(n.path, t(n.key));
      if (n.path === active) a.classList.add('active');
      a.setAttribute('data-nav', n.path || 'dashboard');
      // Orders waiting for the admin (manual payments to confirm) are seen from every page.
      if (n.admin) attachPendingBadge(a, 'admin-pending-badge');
      return a;
    }),
  );
  const account = loggedIn
    ? h(
        'div',
        { class: 'account' },
        link('billing', balance),
        h('span', { class: 'email', attrs: { title: user?.email ?? '' } }, user?.email ?? ''),
        user?.role === 'admin' ? h('span', { class: 'badge badge-info' }, t('role.admin')) : null,
        h(
          'button',
          {
            class: 'btn btn-small btn-ghost',
            attrs: { type: 'button', 'data-testid': 'logout' },
            on: { click: () => void logout() },
          },
          t('nav.logout'),
        ),
      )
    : h('div', { class: 'account' }, link('login', t('auth.login')), link('register', t('auth.register')));
  const main = h('main', { class: 'main', attrs: { id: 'main' } });
  const root = h(
    'div',
    { class: 'app' },
    h(
      'header',
      { class: 'topbar' },
      link('', h('span', { class: 'brand' }, h('span', { class: 'logo' }, 'T'), 'Tollgate')),
      h('div', { class: 'spacer' }),
      langSwitch(),
      account,
    ),
    h('div', { class: 'frame' }, nav, main),
  );
  if (loggedIn && !me) void loadMe().catch(() => undefined);
  revealActive(nav);
  return { root, main };
}

export function mountInto(appEl: HTMLElement, root: HTMLElement): void {
  clear(appEl, root);
  appEl.classList.remove('boot');
}
