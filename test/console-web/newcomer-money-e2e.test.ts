// A customer without credit and the admin who is paid by hand, in Chinese and in English, on a desktop
// (1280x800) and on a phone (390x844), in Debian's Chromium against the shipped operations.yaml and plugins:
// the console follows the browser's language when nothing else was chosen, and a choice saved in the console wins
// over a link's ?lang=; an account with nothing to pay with gets a top-up step before the debugger; the 402 in
// the debugger names the real billing page and links to it; the admin sees the orders waiting from the
// dashboard, confirms one (the dialog shows the amount once, "¥10.00"), and every badge counts one fewer.
// Screenshots: test/artifacts/console/newcomer/.

import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import t, { type Test } from 'tap';
import { createUser } from '../../core/accounts/users.js';
import { en } from '../../web/src/i18n/en.js';
import { zh } from '../../web/src/i18n/zh.js';
import { bearer, tokenFor } from '../console/support.js';
import { consoleInBrowser, haveChromium, SHOTS, watchProblems } from '../helpers/browser.js';
import { createShippedApp, type TestApp, testPasswordHash } from '../helpers/create-test-app.js';
import { fill, pageOverflow } from './page-geometry.js';

const DICT = { zh, en };
const LOCALE = { zh: 'zh-CN', en: 'en-US' } as const;
const HTML_LANG = { zh: 'zh-CN', en: 'en' } as const;
const DEVICES = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;
const DIR = `${SHOTS}/newcomer`;

if (haveChromium(t, 'newcomer money journeys')) {
  t.setTimeout(600_000);
  let h: TestApp;
  let browser: Browser;
  let base: string;
  const problems: string[] = [];

  consoleInBrowser(
    t,
    () => createShippedApp(),
    (x) => ({ h, browser, base } = x),
  );
  t.before(() => mkdirSync(DIR, { recursive: true }));

  const open = async (lang: 'zh' | 'en', device: 'desktop' | 'phone') => {
    const ctx = await browser.newContext({ viewport: DEVICES[device], locale: LOCALE[lang] });
    const page = await ctx.newPage();
    watchProblems(page, problems);
    const dialogs: string[] = [];
    page.on('dialog', (dlg) => (dialogs.push(dlg.message()), void dlg.accept()));
    return { ctx, page, dialogs };
  };
  const login = async (page: Page, email: string): Promise<void> => {
    await page.goto(`${base}/console/login`);
    await page.fill('input[name=email]', email);
    await page.fill('input[name=password]', 'password123');
    await page.click('[data-testid=auth-submit]');
    await page.waitForSelector('[data-page="dashboard"]');
  };
  const pending = async (): Promise<number> =>
    Number(
      (
        await h.services.store.db
          .selectFrom('orders')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('status', '=', 'pending')
          .executeTakeFirstOrThrow()
      ).n,
    );
  /** The badge's number, or null while it is not there. */
  const badgeOf = (page: Page, testId: string): Promise<string | null> =>
    page
      .locator(`[data-testid=${testId}]`)
      .first()
      .textContent({ timeout: 500 })
      .catch(() => null);

  for (const lang of ['zh', 'en'] as const) {
    for (const device of ['desktop', 'phone'] as const) {
      t.test(`no credit yet, then paid by hand: ${lang}, ${device}`, async (t) => {
        const d = DICT[lang];
        const other = lang === 'zh' ? 'en' : 'zh';
        const stamp = `${lang}-${device}-${Date.now()}`;
        const user = await createUser(
          h.services.store.db,
          `broke-${stamp}@example.com`,
          'password123',
          'user',
          await testPasswordHash(),
        );
        const auth = bearer(await tokenFor(h, user.id));
        const key = await h.client.post('/console/api/keys', { name: 'first' }, auth);
        t.equal(key.status, 201);
        const orders: number[] = [];
        for (const id of ['t10', 't100']) {
          const o = await h.client.post('/console/api/orders', { kind: 'package', id }, auth);
          t.equal(o.status, 201);
          orders.push(o.body.order.id);
        }
        const { ctx, page, dialogs } = await open(lang, device);
        t.teardown(() => ctx.close());
        const shot = async (t: Test, p: Page, step: string): Promise<void> => {
          await p.screenshot({ path: `${DIR}/money-${lang}-${device}-${step}.png`, fullPage: true });
          t.ok((await pageOverflow(p)) <= 0, `${step}: nothing wider than the screen`);
        };

        await t.test("nothing chosen yet: the browser's language", async (t) => {
          await page.goto(`${base}/console/login`);
          await page.waitForSelector('[data-testid=auth-submit]');
          t.equal(await page.getAttribute('html', 'lang'), HTML_LANG[lang]);
          t.equal((await page.textContent('[data-testid=auth-submit]'))?.trim(), d['auth.login']);
        });

        await t.test('no credit: a top-up step before the debugger', async (t) => {
          await login(page, `broke-${stamp}@example.com`);
          t.same(
            await page
              .locator('[data-testid=quick-start] [data-step]')
              .evaluateAll((els) => els.map((e) => (e as unknown as { dataset: { step: string } }).dataset.step)),
            ['key', 'topup', 'try', 'code'],
          );
          t.equal(
            await page.getAttribute('[data-step=topup] a', 'href', { timeout: 2000 }).catch(() => null),
            '/console/billing',
          );
          await shot(t, page, '1-dashboard');
        });

        await t.test('the 402 names the billing page as the navigation does, and links to it', async (t) => {
          await page.click('nav.sidenav a[data-nav="debugger"]');
          await page.selectOption('[data-testid=dbg-op]', 'phone');
          await page.selectOption('[data-testid=dbg-key]', 'paste');
          await page.fill('[data-testid=dbg-secret]', key.body.secret);
          await page.fill('#p-phone', '13800138000');
          await page.click('[data-testid=dbg-send]');
          await page.waitForSelector('[data-testid=dbg-status]', { state: 'attached' });
          t.equal(await page.textContent('[data-testid=dbg-status]'), '402');
          const hint = (await page.textContent('[data-testid=dbg-error-hint]')) ?? '';
          t.equal(
            hint,
            `${fill(d['consoleHint.INSUFFICIENT_BALANCE'], { page: d['nav.billing'] })} ${d['nav.billing']} →`,
          );
          t.notMatch(hint, /充值与套餐|billing page/, 'no page that does not exist');
          await shot(t, page, '2-debugger-402');
          await page.click('[data-testid=dbg-error-hint] a', { timeout: 2000 });
          await page.waitForSelector('[data-page="billing"]');
        });

        await t.test("a choice made in the console wins over a link's ?lang=", async (t) => {
          await page.click('[data-testid=lang-switch]');
          await page.goto(`${base}/console/docs?lang=${lang}`);
          await page.waitForSelector('a[data-op="phone"]');
          t.equal(await page.getAttribute('html', 'lang'), HTML_LANG[other], 'the saved choice wins');
          await page.click('[data-testid=lang-switch]');
          t.equal(await page.getAttribute('html', 'lang'), HTML_LANG[lang]);
          t.same(dialogs, [], 'the customer saw no dialog');
        });

        await t.test('the admin sees the orders waiting, confirms one: ¥10.00 once, badges count down', async (t) => {
          const adminEmail = `boss-${stamp}@example.com`;
          await createUser(h.services.store.db, adminEmail, 'password123', 'admin', await testPasswordHash());
          const a = await open(lang, device);
          t.teardown(() => a.ctx.close());
          await login(a.page, adminEmail);
          const before = await pending();
          t.ok(before >= 2);
          await a.page.waitForSelector('[data-testid=admin-pending-badge]', { timeout: 5000 }).catch(() => null);
          t.equal(await badgeOf(a.page, 'admin-pending-badge'), String(before), 'seen from the dashboard');
          // On a phone the Admin link may be off screen in the navigation strip: the dashboard says it in a line.
          t.equal(
            await badgeOf(a.page, 'admin-pending-notice'),
            `${fill(d['admin.pendingNotice'], { n: String(before) })} ${d['admin.orders']} →`,
          );
          await a.page.screenshot({ path: `${DIR}/money-${lang}-${device}-3-admin-dashboard.png` });
          await a.page.click('nav.sidenav a[data-nav="admin"]');
          await a.page.click('.subnav a[href="/console/admin/orders"]');
          await a.page.waitForSelector(`[data-testid=confirm-order-${orders[0]}]`);
          await a.page.click(`[data-testid=confirm-order-${orders[0]}]`);
          await a.page.waitForSelector('.notice-ok');
          t.same(
            a.dialogs,
            [fill(d['admin.confirmAsk'], { id: String(orders[0]), amount: '¥10.00' })],
            'the amount once, with one currency sign',
          );
          t.notMatch(a.dialogs[0] ?? '', /¥¥/);
          t.equal(await pending(), before - 1);
          for (const id of ['admin-pending-badge', 'nav-pending-badge']) {
            const counted = await a.page
              .waitForFunction(
                ([sel, want]) =>
                  (
                    globalThis as unknown as {
                      document: { querySelector(s: string): { textContent: string } | null };
                    }
                  ).document.querySelector(sel)?.textContent === want,
                [`[data-testid=${id}]`, String(before - 1)] as const,
                { timeout: 5000 },
              )
              .then(() => true)
              .catch(() => false);
            t.ok(counted, `${id} counts one fewer after the confirmation`);
          }
          await shot(t, a.page, '4-admin-confirmed');
        });
        // The other order is cancelled, so the next run counts only its own.
        await h.client.post(`/console/api/orders/${orders[1]}/cancel`, {}, auth);
      });
    }
  }

  t.test('no page errors or CSP refusals', async (t) => {
    t.same(problems, []);
  });
}
