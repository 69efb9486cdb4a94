// Sign-in that survives tabs and restarts, in Debian's Chromium: "remember me" shares the
// sign-in with every tab and a restarted browser, a browser-session sign-in reaches new tabs but not a restart,
// signing out (or an expiry) in one tab signs every tab out, "sign out everywhere" ends another device's
// session, the debugger's key is remembered per browser, a form's message lands in view on a 390 px phone, and
// the console follows the system's dark mode. Screenshots go to test/artifacts/console/ for a human to look at.

import { readFileSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import t from 'tap';
import { postEntry } from '../../core/billing/ledger.js';
import { toMicro } from '../../core/kernel/money.js';
import { CHINESE_VISITOR, consoleInBrowser, haveChromium, SHOTS, watchProblems } from '../helpers/browser.js';
import { createTestApp, type TestApp } from '../helpers/create-test-app.js';

// Browser globals used inside page.evaluate callbacks (the tests are typed without lib DOM).
declare const localStorage: { getItem(key: string): string | null; setItem(key: string, value: string): void };
declare const sessionStorage: { getItem(key: string): string | null };
declare const document: {
  querySelector(selector: string): { click(): void; getBoundingClientRect(): { top: number; bottom: number } } | null;
  body: { scrollHeight: number };
};
declare const window: {
  innerHeight: number;
  scrollTo(x: number, y: number): void;
  scrollY: number;
  getComputedStyle(el: unknown): { backgroundColor: string };
};

if (haveChromium(t, 'console sessions e2e')) {
  t.setTimeout(240_000);
  let h: TestApp;
  let browser: Browser;
  let base: string;
  const problems: string[] = [];
  const password = 'secret123pass';

  consoleInBrowser(
    t,
    () => createTestApp(),
    (x) => ({ h, browser, base } = x),
  );

  const context = async (width = 1280, height = 860): Promise<BrowserContext> =>
    browser.newContext({ ...CHINESE_VISITOR, viewport: { width, height } });
  const open = async (ctx: BrowserContext, path: string): Promise<Page> => {
    const page = await ctx.newPage();
    watchProblems(page, problems);
    await page.goto(`${base}/console/${path}`);
    return page;
  };
  const shot = (page: Page, name: string, fullPage = true): Promise<Buffer> =>
    page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage });
  const register = async (email: string): Promise<number> => {
    const res = await h.client.post('/console/api/register', { email, password });
    return res.body.user.id as number;
  };
  const login = async (page: Page, email: string, remember: boolean): Promise<void> => {
    await page.waitForSelector('[data-testid=auth-submit]');
    await page.fill('input[name=email]', email);
    await page.fill('input[name=password]', password);
    if (remember) await page.check('[data-testid=remember-me]');
    await page.click('[data-testid=auth-submit]');
    await page.waitForSelector('[data-page="dashboard"]');
  };
  const stored = (page: Page) =>
    page.evaluate(() => ({
      local: localStorage.getItem('tollgate.token'),
      session: sessionStorage.getItem('tollgate.token'),
      expires: localStorage.getItem('tollgate.expires'),
    }));

  t.test(
    'remember me: every tab and a restarted browser are signed in; signing out in one tab signs out the others',
    async (t) => {
      const email = `remember-${Date.now()}@example.com`;
      await register(email);
      const ctx = await context();
      const waiting = await open(ctx, 'login?next=%2Fconsole%2Fusage');
      await waiting.waitForSelector('[data-testid=auth-submit]');
      const a = await open(ctx, 'login');
      await a.waitForSelector('[data-testid=remember-me]');
      t.ok(await a.isVisible('text=记住我'), 'the remember-me box is labelled in Chinese by default');
      await shot(a, 'login-remember-zh');
      await login(a, email, true);
      const s = await stored(a);
      t.match(s.local, /^ut_/, 'the token is in localStorage');
      t.equal(s.session, null);
      t.ok(Date.parse(s.expires ?? '') - Date.now() > 29 * 24 * 3600_000, 'and its 30-day expiry with it');

      await waiting.waitForSelector('[data-page="usage"]');
      t.pass('a tab waiting on the log-in page signs in with the other one, and goes where it was going');
      const b = await open(ctx, 'keys');
      await b.waitForSelector('[data-page="keys"]');
      t.pass('a second tab opens signed in');

      // A restart: cookies and localStorage survive, sessionStorage does not.
      const restarted = await browser.newContext({
        ...CHINESE_VISITOR,
        viewport: { width: 1280, height: 860 },
        storageState: await ctx.storageState(),
      });
      const c = await open(restarted, 'usage');
      await c.waitForSelector('[data-page="usage"]');
      t.pass('the restarted browser is still signed in');
      await restarted.close();

      await b.click('[data-testid=logout]');
      await b.waitForURL(/\/console\/login/);
      await a.waitForURL(/\/console\/login/);
      // localStorage reaches other tabs' processes key by key: wait for the last removal to arrive.
      await a.waitForFunction(() => localStorage.getItem('tollgate.expires') === null);
      t.same(await stored(a), { local: null, session: null, expires: null }, 'the other tab forgot the token too');
      await ctx.close();
    },
  );

  t.test(
    'without remember me: new tabs share the sign-in, a restart does not; an expired token signs out',
    async (t) => {
      const email = `session-${Date.now()}@example.com`;
      await register(email);
      const ctx = await context();
      const a = await open(ctx, 'login');
      await login(a, email, false);
      const s = await stored(a);
      t.equal(s.local, null, 'nothing in localStorage');
      t.match(s.session, /^ut_/);

      const b = await open(ctx, 'billing');
      await b.waitForSelector('[data-page="billing"]');
      t.equal((await stored(b)).session, s.session, 'a new tab was handed the same token by the open one');

      const restarted = await browser.newContext({
        ...CHINESE_VISITOR,
        viewport: { width: 1280, height: 860 },
        storageState: await ctx.storageState(),
      });
      const c = await open(restarted, 'usage');
      await c.waitForURL(/\/console\/login\?next=/);
      t.pass('a restarted browser asks for the log-in again');
      await restarted.close();
      await ctx.close();

      // Expiry: a remembered token whose time is up is dropped before any request, and the page goes to log-in.
      const ctx2 = await context();
      const d = await open(ctx2, 'login');
      await login(d, email, true);
      // While the page is open: its timer ends the session when the token's time is up, without a request.
      await d.evaluate(() => localStorage.setItem('tollgate.expires', new Date(Date.now() + 1500).toISOString()));
      await d.reload();
      await d.waitForSelector('[data-page="dashboard"]');
      await d.waitForURL(/\/console\/login/);
      t.equal((await stored(d)).local, null, 'the token is dropped at its expiry');
      await login(d, email, true);
      await d.evaluate(() => localStorage.setItem('tollgate.expires', new Date(Date.now() - 1000).toISOString()));
      await d.goto(`${base}/console/keys`);
      await d.waitForURL(/\/console\/login\?next=/);
      t.equal((await stored(d)).local, null, 'the expired token is gone');
      await ctx2.close();
    },
  );

  t.test('sign out everywhere ends the session on another device', async (t) => {
    const email = `everywhere-${Date.now()}@example.com`;
    await register(email);
    const laptop = await context();
    const phoneCtx = await context(390, 844);
    const l = await open(laptop, 'login');
    await login(l, email, true);
    const p = await open(phoneCtx, 'login');
    await login(p, email, true);
    await l.goto(`${base}/console/security`);
    await l.waitForSelector('[data-testid=sign-out-everywhere]');
    await shot(l, 'security-sessions-zh');
    await l.click('[data-testid=sign-out-everywhere]');
    await l.waitForURL(/\/console\/login/);
    // The phone learns it at its next request.
    await p.click('nav.sidenav a[data-nav="keys"]');
    await p.waitForURL(/\/console\/login/);
    t.equal((await stored(p)).local, null);
    t.equal(
      (await h.client.get('/console/api/me', { authorization: `Bearer ${(await stored(l)).local ?? 'ut_none'}` }))
        .status,
      401,
    );
    await laptop.close();
    await phoneCtx.close();
  });

  t.test('the debugger remembers the key it used, in every tab, until sign-out', async (t) => {
    const email = `dbg-${Date.now()}@example.com`;
    const userId = await register(email);
    await postEntry(h.services.store.db, { userId, amount: toMicro(1), kind: 'grant', ref: `sessions-e2e:${userId}` });
    const ctx = await context();
    const a = await open(ctx, 'login');
    await login(a, email, true);
    await a.click('nav.sidenav a[data-nav="keys"]');
    await a.fill('input[name=name]', 'remembered');
    await a.click('[data-testid=create-key]');
    const secret = (await a.textContent('[data-testid=new-secret]'))?.trim() ?? '';
    await a.click('nav.sidenav a[data-nav="debugger"]');
    await a.selectOption('[data-testid=dbg-op]', 'echo');
    await a.click('[data-testid=dbg-send]');
    await a.waitForSelector('[data-testid=dbg-status]', { state: 'attached' });
    t.equal(await a.textContent('[data-testid=dbg-status]'), '200');

    const b = await open(ctx, 'debugger?op=echo');
    await b.waitForSelector('[data-testid=dbg-key]');
    t.equal(await b.inputValue('[data-testid=dbg-key]'), 'saved', 'a new tab offers the key used last');
    t.equal(
      await b.textContent('[data-testid=dbg-key] option:checked'),
      `上次使用的密钥 ${secret.slice(0, 7)}…${secret.slice(-4)}`,
    );
    await b.click('[data-testid=dbg-send]');
    await b.waitForSelector('[data-testid=dbg-status]', { state: 'attached' });
    t.equal(await b.textContent('[data-testid=dbg-status]'), '200', 'and calls with it');
    await shot(b, 'debugger-saved-key-zh');
    await b.click('[data-testid=logout]');
    await b.waitForURL(/\/console\/login/);
    t.equal(await b.evaluate(() => localStorage.getItem('tollgate.debuggerKey')), null, 'sign-out forgets the key');
    await ctx.close();
  });

  t.test('phone: a message below the fold is brought into view; dark mode follows the system', async (t) => {
    const email = `phone-${Date.now()}@example.com`;
    await register(email);
    const ctx = await context(390, 844);
    const page = await open(ctx, 'login');
    await login(page, email, false);
    await page.click('nav.sidenav a[data-nav="security"]');
    await page.waitForSelector('[data-testid=change-password]');
    await page.fill('input[name=current_password]', 'wrong-password1');
    await page.fill('input[name=new_password]', 'another123pass');
    // Scrolled away from the form, the click comes from a script (Playwright would scroll to the button first).
    await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
    const before = await page.evaluate(() => window.scrollY);
    t.ok(before > 0, 'the page is scrolled down');
    await page.evaluate(() => document.querySelector('[data-testid=change-password]')!.click());
    await page.waitForSelector('.msg-slot .notice-err');
    const rect = await page.evaluate(() => {
      const r = document.querySelector('.msg-slot .notice-err')!.getBoundingClientRect();
      // The top bar and the navigation strip stay on screen (sticky) and cover what scrolls under them.
      const covered = document.querySelector('nav.sidenav')!.getBoundingClientRect().bottom;
      return { top: r.top, bottom: r.bottom, covered, height: window.innerHeight };
    });
    t.ok(
      rect.top >= rect.covered && rect.bottom <= rect.height,
      `the error is on screen, below the sticky bars (${Math.round(rect.top)}..${Math.round(rect.bottom)}, bars end at ${Math.round(rect.covered)}, screen ${rect.height})`,
    );
    await shot(page, 'phone-error-in-view-zh', false);

    // The debugger's answer is below its form on a phone: it is scrolled into view when it arrives.
    await page.click('nav.sidenav a[data-nav="debugger"]');
    await page.waitForSelector('[data-testid=dbg-send]');
    await page.selectOption('[data-testid=dbg-key]', 'paste');
    await page.fill('[data-testid=dbg-secret]', 'sk_not_a_real_key_000000000000000');
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.evaluate(() => document.querySelector('[data-testid=dbg-send]')!.click());
    await page.waitForSelector('[data-testid=dbg-status]', { state: 'attached' });
    t.equal(await page.textContent('[data-testid=dbg-status]'), '401');
    const answer = await page.evaluate(() => {
      const r = document.querySelector('[data-testid=dbg-result]')!.getBoundingClientRect();
      return {
        top: r.top,
        covered: document.querySelector('nav.sidenav')!.getBoundingClientRect().bottom,
        height: window.innerHeight,
      };
    });
    t.ok(await page.evaluate(() => window.scrollY > 0), 'the page scrolled down to it');
    t.ok(
      answer.top >= answer.covered && answer.top < answer.height,
      `the answer's top is on screen (${Math.round(answer.top)}, bars end at ${Math.round(answer.covered)})`,
    );
    await shot(page, 'phone-debugger-answer-zh', false);

    await page.emulateMedia({ colorScheme: 'dark' });
    const bg = await page.evaluate(() => window.getComputedStyle(document.querySelector('body')).backgroundColor);
    t.equal(bg, 'rgb(15, 20, 28)', 'dark background from prefers-color-scheme');
    await shot(page, 'phone-dark-zh', false);
    await page.click('nav.sidenav a[data-nav="dashboard"]');
    await page.waitForSelector('[data-page="dashboard"]');
    await shot(page, 'dashboard-dark-zh');
    await ctx.close();
  });

  t.test("a CSV download carries the browser's time zone and the console's language", async (t) => {
    const email = `csv-${Date.now()}@example.com`;
    const reg = await h.client.post('/console/api/register', { email, password });
    const auth = { authorization: `Bearer ${reg.body.token}` };
    await postEntry(h.services.store.db, {
      userId: reg.body.user.id,
      amount: toMicro(1),
      kind: 'grant',
      ref: `csv-e2e:${reg.body.user.id}`,
    });
    const key = await h.client.post('/console/api/keys', { name: 'csv' }, auth);
    const call = await h.client.get('/api/echo?msg=%E4%BD%A0%E5%A5%BD', { 'x-api-key': key.body.secret });
    t.equal(call.status, 200);
    const row = await h.services.store.db
      .selectFrom('call_log')
      .select('created_at')
      .where('request_id', '=', call.body.request_id)
      .executeTakeFirstOrThrow();
    const local = new Intl.DateTimeFormat('sv-SE', {
      timeZone: 'America/New_York',
      dateStyle: 'short',
      timeStyle: 'medium',
    }).format(new Date(Number(row.created_at)));

    const ctx = await browser.newContext({
      ...CHINESE_VISITOR,
      viewport: { width: 1280, height: 860 },
      timezoneId: 'America/New_York',
      acceptDownloads: true,
    });
    const page = await open(ctx, 'login');
    await login(page, email, false);
    await page.click('[data-testid=lang-switch]');
    await page.click('nav.sidenav a[data-nav="usage"]');
    await page.waitForSelector('[data-testid=calls-table]');
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=export-csv]')]);
    const bytes = readFileSync((await download.path())!);
    t.same([...bytes.subarray(0, 3)], [0xef, 0xbb, 0xbf], 'UTF-8 BOM');
    const lines = bytes.toString('utf8').split('\r\n');
    t.equal(
      lines[0],
      '\uFEFFRequest ID,Time (America/New_York),Operation,Key,Status,Error code,Charged (TOKEN),Cached,Free because,Duration (ms),IP',
    );
    t.match(
      lines[1],
      `${call.body.request_id},${local},echo,${key.body.key.name} (${key.body.key.prefix}),200,,0.01,0,`,
    );
    await ctx.close();
  });

  t.test('the front page at /: no script needed, zh and en, phone width, dark mode', async (t) => {
    for (const [lang, width, height, scheme] of [
      ['zh', 1280, 860, 'light'],
      ['en', 390, 844, 'light'],
      ['zh', 390, 844, 'dark'],
    ] as const) {
      const ctx = await browser.newContext({
        viewport: { width, height },
        javaScriptEnabled: false,
        colorScheme: scheme,
        locale: lang === 'zh' ? 'zh-CN' : 'en-US',
      });
      const page = await ctx.newPage();
      watchProblems(page, problems);
      const res = await page.goto(`${base}/`);
      t.equal(res?.status(), 200);
      t.equal(
        await page.getAttribute('html', 'lang'),
        lang === 'zh' ? 'zh-CN' : 'en',
        'the language follows the browser (Accept-Language)',
      );
      t.ok(await page.isVisible('[data-op="echo"] .price'), 'the price list is there without JavaScript');
      const wide = await page.evaluate(
        () => (document as unknown as { documentElement: { scrollWidth: number } }).documentElement.scrollWidth,
      );
      t.ok(wide <= width, `nothing wider than the screen (${wide} <= ${width})`);
      await shot(page, `front-${lang}-${width}-${scheme}`);
      await ctx.close();
    }
  });

  t.test('no page errors or CSP refusals', async (t) => {
    t.same(problems, []);
  });
}
