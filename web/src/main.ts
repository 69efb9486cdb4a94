// Entry point of the web console: picks the page for the URL, guards pages that need a login (or the admin
// role), and re-renders when the language changes. Each page renders into a fresh <main>, so a slow page that
// finishes after the user moved on writes into a detached element and is simply dropped.

import { ApiFailure, setUnauthorizedHandler } from './api.js';
import { clear, h } from './dom.js';
import { getLang, htmlLang, type MessageKey, onLangChange, t } from './i18n/index.js';
import { authFrame, forgetMe, mountInto, shell } from './layout.js';
import { renderForgot, renderResendVerification, renderReset, renderVerify } from './pages/account-links.js';
import { renderAdmin } from './pages/admin.js';
import { renderAuth } from './pages/auth.js';
import { renderBilling } from './pages/billing.js';
import { renderDashboard } from './pages/dashboard.js';
import { renderDebugger } from './pages/debugger.js';
import { renderDocs } from './pages/docs.js';
import { renderKeys } from './pages/keys.js';
import { renderNotify } from './pages/notify.js';
import { renderSecurity } from './pages/security.js';
import { renderUsage } from './pages/usage.js';
import { currentRoute, link, navigate, type Route, startRouter } from './router.js';
import { adoptOtherTabSession, getToken, getUser, isAdmin, onSessionChange } from './session.js';
import { errorText, loading, notice, pageHeader } from './ui.js';

interface PageDef {
  title: MessageKey;
  auth: boolean;
  admin?: boolean;
  render(main: HTMLElement, r: Route): Promise<void> | void;
}

const PAGES: Record<string, PageDef> = {
  '': { title: 'nav.dashboard', auth: true, render: renderDashboard },
  keys: { title: 'nav.keys', auth: true, render: renderKeys },
  docs: { title: 'nav.docs', auth: false, render: renderDocs },
  debugger: { title: 'nav.debugger', auth: true, render: renderDebugger },
  usage: { title: 'nav.usage', auth: true, render: renderUsage },
  billing: { title: 'nav.billing', auth: true, render: renderBilling },
  notify: { title: 'nav.notify', auth: true, render: renderNotify },
  security: { title: 'nav.security', auth: true, render: renderSecurity },
  admin: { title: 'nav.admin', auth: true, admin: true, render: renderAdmin },
};

const appEl = document.getElementById('app') ?? document.body;

function render(route: Route): void {
  const first = route.parts[0] ?? '';
  document.documentElement.lang = htmlLang(getLang());
  const loggedIn = Boolean(getToken() && getUser());
  // Mailed links and the reset request work with or without a session.
  if (first === 'forgot' || first === 'reset' || first === 'verify' || first === 'verify-resend') {
    const { root, main } = authFrame();
    document.title = `${t(first === 'reset' ? 'account.resetTitle' : first === 'forgot' ? 'account.forgotTitle' : 'account.verifyTitle')} · Tollgate`;
    if (first === 'forgot') renderForgot(main);
    else if (first === 'reset') renderReset(main, route.query);
    else if (first === 'verify-resend') renderResendVerification(main);
    else renderVerify(main, route.query);
    mountInto(appEl, root);
    return;
  }
  if (first === 'login' || first === 'register') {
    // Signed in (here or in another tab): on to where the log-in was asked for, else the dashboard.
    if (loggedIn) {
      const next = route.query.get('next');
      navigate(next?.startsWith('/console/') && !next.startsWith('//') ? next.slice('/console/'.length) : '', true);
      return;
    }
    const { root, main } = authFrame();
    document.title = `${t(first === 'login' ? 'auth.login' : 'auth.register')} · Tollgate`;
    renderAuth(main, first, route.query.get('next'));
    mountInto(appEl, root);
    return;
  }
  const page = PAGES[first];
  if (page?.auth && !loggedIn) {
    const next = first ? `?next=${encodeURIComponent(location.pathname + location.search)}` : '';
    navigate(`login${next}`, true);
    return;
  }
  const { root, main } = shell(page ? first : '');
  mountInto(appEl, root);
  if (!page) {
    document.title = 'Tollgate';
    main.append(pageHeader(t('notFound.title')), h('p', null, t('notFound.text'), ' ', link('', t('nav.dashboard'))));
    return;
  }
  document.title = `${t(page.title)} · Tollgate`;
  if (page.admin && !isAdmin()) {
    main.append(pageHeader(t(page.title)), notice('err', t('err.FORBIDDEN')));
    return;
  }
  main.append(loading());
  const content = h('div', { class: 'page', attrs: { 'data-page': first || 'dashboard' } });
  void Promise.resolve()
    .then(() => page.render(content, route))
    .then(
      () => clear(main, content),
      (err: unknown) => {
        if (err instanceof ApiFailure && err.status === 401) return; // the unauthorized handler took over
        clear(main, pageHeader(t(page.title)), notice('err', t('common.loadFailed'), ' ', errorText(err)));
      },
    );
}

setUnauthorizedHandler(() => navigate(`login?next=${encodeURIComponent(location.pathname)}`, true));
onLangChange(() => render(currentRoute()));
// Signed in or out in another tab, or the token expired: the current URL is rendered again (a page that needs a
// login then goes to log-in; the log-in page goes to the dashboard).
onSessionChange(() => {
  forgetMe();
  render(currentRoute());
});

// A new tab first asks the open ones for their sign-in (a browser-session login is kept per tab).
void adoptOtherTabSession().then(() => startRouter(render));
