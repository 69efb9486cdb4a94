// A first-time customer in Chinese and in English, on a desktop (1280x800) and on a phone (390x844), in Debian's
// Chromium against the real app with the shipped operations.yaml and plugins: sign up (trial credit), make a key,
// read an operation's docs (what it returns), try it in the debugger from the docs page, open the pay page of a
// package, redeem a code, export usage. Then an admin finds that customer's pending order by email and cancels
// it, and sees revenue and operation health on the overview. Every page must fit the screen (no sideways
// scrolling of the page itself) and show the chosen language. Screenshots: test/artifacts/console/journey/.

import { mkdirSync, readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import t from 'tap';
import { createUser } from '../../core/accounts/users.js';
import { en } from '../../web/src/i18n/en.js';
import { zh } from '../../web/src/i18n/zh.js';
import { admin as makeAdmin, tokenFor } from '../console/support.js';
import { CHINESE_VISITOR, consoleInBrowser, haveChromium, SHOTS, watchProblems } from '../helpers/browser.js';
import { createShippedApp, type TestApp } from '../helpers/create-test-app.js';

// Browser globals used inside page.evaluate callbacks: they run in Chromium; the tests are typed without lib DOM.
declare const document: {
  documentElement: { scrollWidth: number; lang: string };
  querySelector(selector: string): { textContent: string | null } | null;
  querySelectorAll(selector: string): Iterable<{
    tagName: string;
    className: string;
    textContent: string | null;
    getBoundingClientRect(): { right: number };
    closest(s: string): unknown;
  }>;
};
declare const window: { innerWidth: number };

const DICT = { zh, en };
const DEVICES = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;
type Device = keyof typeof DEVICES;
const DIR = `${SHOTS}/journey`;
const PASSWORD = 'firstTime2026';

if (haveChromium(t, 'first-customer journeys')) {
  t.setTimeout(600_000);
  let h: TestApp;
  let browser: Browser;
  let base: string;
  const problems: string[] = [];
  /** The customers made by the journeys, for the admin part: lang/device -> email. */
  const customers = new Map<string, string>();
  let adminHeaders: Record<string, string>;

  consoleInBrowser(
    t,
    () => createShippedApp(1_000_000),
    (x) => ({ h, browser, base } = x),
  );
  t.before(() => mkdirSync(DIR, { recursive: true }));

  const open = async (device: Device) => {
    const ctx = await browser.newContext({ ...CHINESE_VISITOR, viewport: DEVICES[device], acceptDownloads: true });
    const page = await ctx.newPage();
    watchProblems(page, problems);
    page.on('dialog', (d) => void d.accept());
    return { ctx, page };
  };
  /** The page itself never scrolls sideways (wide tables scroll inside their own box). */
  const overflow = (page: Page): Promise<number> =>
    page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  /** What sticks out past the right edge, to name in a failure. */
  const offenders = (page: Page): Promise<string[]> =>
    page.evaluate(() => {
      const out: string[] = [];
      for (const el of document.querySelectorAll('body *')) {
        const r = el.getBoundingClientRect();
        if (r.right > window.innerWidth + 0.5 && !el.closest('.table-wrap, .sidenav, pre, .tabs'))
          out.push(`${el.tagName.toLowerCase()}.${el.className} ${Math.round(r.right)}px`);
      }
      return out.slice(0, 8);
    });
  /** The current page's link in a sideways-scrolling strip (main navigation, admin sections) is on screen. */
  const activeOnScreen = async (page: Page, strip: string): Promise<boolean> => {
    const box = await page.locator(`${strip} a.active`).first().boundingBox();
    const width = page.viewportSize()?.width ?? 0;
    return box !== null && box.x >= 0 && box.x + box.width <= width + 0.5;
  };
  const nav = async (page: Page, name: string): Promise<void> => {
    await page.click(`nav.sidenav a[data-nav="${name}"]`);
    await page.waitForSelector(`[data-page="${name}"]`);
  };

  for (const lang of ['zh', 'en'] as const) {
    for (const device of ['desktop', 'phone'] as const) {
      t.test(`first-time customer, ${lang}, ${device}`, async (t) => {
        const d = DICT[lang];
        const email = `first-${lang}-${device}-${Date.now()}@example.com`;
        customers.set(`${lang}/${device}`, email);
        const { ctx, page } = await open(device);
        const shot = async (step: string): Promise<void> => {
          await page.screenshot({ path: `${DIR}/${lang}-${device}-${step}.png`, fullPage: true });
          const over = await overflow(page);
          t.ok(
            over <= 0,
            `${step}: nothing wider than the ${device} screen (${over}px: ${(await offenders(page)).join(', ')})`,
          );
        };

        // Sign up, switching language first where the customer reads English.
        await page.goto(`${base}/console/register`);
        await page.waitForSelector('[data-testid=auth-submit]');
        if (lang === 'en') await page.click('[data-testid=lang-switch]');
        await page.waitForFunction(
          (want) => document.documentElement.lang === want || document.documentElement.lang.startsWith(want),
          lang === 'zh' ? 'zh' : 'en',
        );
        t.equal((await page.textContent('[data-testid=auth-submit]'))?.trim(), d['auth.createAccount']);
        await page.fill('input[name=email]', email);
        await page.fill('input[name=password]', PASSWORD);
        await shot('1-register');
        await page.click('[data-testid=auth-submit]');
        await page.waitForSelector('[data-page="dashboard"]');
        t.match(await page.textContent('[data-testid=balance-pill]'), /1(\.0+)? TOKEN/, 'the trial credit is there');
        t.equal((await page.textContent('nav.sidenav a[data-nav="docs"]'))?.trim(), d['nav.docs']);
        await shot('2-dashboard');

        // A key, shown once.
        await nav(page, 'keys');
        await page.fill('input[name=name]', `${lang} ${device}`);
        await page.click('[data-testid=create-key]');
        t.match((await page.textContent('[data-testid=new-secret]'))?.trim(), /^sk_/);
        await shot('3-key');

        // Docs: the operation list, then one operation with what it takes and returns.
        await nav(page, 'docs');
        await page.waitForSelector('a[data-op="phone"]');
        await shot('4-docs');
        await page.click('a[data-op="phone"]');
        await page.waitForSelector(`text=${d['docs.tryIt']}`);
        await page.waitForSelector(`.card-title:has-text("${d['docs.params']}")`);
        // What it returns: the field table from operations.yaml response:, in this language.
        await page.waitForSelector(`.card-title:has-text("${d['docs.responseFields']}")`);
        t.ok(
          await page.isVisible(`td:has-text("${lang === 'zh' ? '归属地精确到哪一级' : 'How far the location goes'}")`),
          'the precision field is described in the UI language',
        );
        t.ok(
          await page.isVisible(
            `td:has-text("${lang === 'zh' ? '中国大陆手机号，11 位' : 'Mainland mobile number, 11 digits'}")`,
          ),
          'the phone parameter is described in the UI language',
        );
        await shot('5-docs-phone');

        // Try it: the docs link opens the debugger on that operation with the new key.
        await page.click(`a:has-text("${d['docs.tryIt']}")`);
        await page.waitForSelector('[data-testid=dbg-op]');
        t.equal(await page.inputValue('[data-testid=dbg-op]'), 'phone');
        t.match(
          await page.textContent('.field:has(#p-phone) .hint'),
          lang === 'zh' ? /^中国大陆手机号，11 位/ : /^Mainland mobile number, 11 digits/,
          "the debugger's hint is in the UI language",
        );
        await page.fill('#p-phone', '13800138000');
        await page.click('[data-testid=dbg-send]');
        await page.waitForSelector('[data-testid=dbg-status]', { state: 'attached' });
        t.equal(
          await page.textContent('[data-testid=dbg-status]'),
          '200',
          (await page.textContent('[data-testid=dbg-result]')) ?? '',
        );
        t.equal((await page.textContent('[data-testid=dbg-deducted]'))?.trim(), '0.005');
        const requestId = (await page.textContent('[data-testid=dbg-request-id]'))?.trim() ?? '';
        t.match(requestId, /\S{8,}/);
        await shot('6-debugger');

        // The pay page of a package: a pending order with the manual payment instructions in this language.
        await nav(page, 'billing');
        await page.click('[data-testid=order-package-t10]');
        await page.waitForSelector('[data-testid=pay-status]');
        t.equal(await page.getAttribute('[data-testid=pay-status]', 'data-status'), 'pending');
        t.ok(await page.isVisible('[data-testid=pay-instructions]'));
        await shot('7-pay');

        // Redeem a code made by an admin: 10 TOKEN arrive.
        adminHeaders ??= (await makeAdmin(h)).headers;
        const batch = await h.client.post(
          '/console/api/admin/redeem-codes',
          { kind: 'package', id: 't10', count: 1 },
          adminHeaders,
        );
        t.equal(batch.status, 201);
        await nav(page, 'billing');
        await page.fill('[data-testid=redeem-code]', batch.body.codes[0]);
        await page.click('[data-testid=redeem-submit]');
        await page.waitForSelector('.notice-ok');
        await page.waitForFunction(() =>
          /10\.995/.test(document.querySelector('[data-testid=balance-pill]')?.textContent ?? ''),
        );
        await shot('8-redeemed');

        // Usage: the debugger call is in the log and exports as CSV.
        await nav(page, 'usage');
        await page.waitForSelector('[data-testid=calls-table]');
        t.ok(await activeOnScreen(page, 'nav.sidenav'), 'the usage link is scrolled into view in the navigation strip');
        t.ok(
          (await page.textContent('[data-testid=calls-table]'))?.includes(requestId),
          'the call log shows the debugger call',
        );
        const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=export-csv]')]);
        const csv = readFileSync((await download.path())!, 'utf8');
        t.ok(csv.includes(requestId), 'the CSV holds the call');
        await shot('9-usage');
        await ctx.close();
      });
    }
  }

  for (const lang of ['zh', 'en'] as const) {
    for (const device of ['desktop', 'phone'] as const) {
      t.test(`admin, ${lang}, ${device}: overview, find a customer's order by email, cancel it`, async (t) => {
        const d = DICT[lang];
        const email = customers.get(`${lang}/${device}`);
        if (!email) return t.fail('the customer journey did not run');
        // One more order of this customer, paid (confirmed by an admin): revenue from orders must show it.
        const buyer = await h.services.store.db
          .selectFrom('users')
          .select('id')
          .where('email', '=', email)
          .executeTakeFirstOrThrow();
        const paid = await h.client.post(
          '/console/api/orders',
          { kind: 'plan', id: 'starter' },
          { authorization: `Bearer ${await tokenFor(h, Number(buyer.id))}` },
        );
        t.equal(
          (await h.client.post(`/console/api/admin/orders/${paid.body.order.id}/confirm`, {}, adminHeaders)).status,
          200,
        );
        const revenue = (await h.client.get('/console/api/admin/revenue?days=30', adminHeaders)).body as {
          totals: { paid: { CNY: number }; plans: number };
        };
        const adminEmail = `boss-${lang}-${device}@example.com`;
        await createUser(h.services.store.db, adminEmail, 'adminpass123', 'admin');
        const { ctx, page } = await open(device);
        const shot = async (step: string): Promise<void> => {
          await page.screenshot({ path: `${DIR}/admin-${lang}-${device}-${step}.png`, fullPage: true });
          const over = await overflow(page);
          t.ok(
            over <= 0,
            `${step}: nothing wider than the ${device} screen (${over}px: ${(await offenders(page)).join(', ')})`,
          );
        };
        await page.goto(`${base}/console/login`);
        await page.waitForSelector('[data-testid=auth-submit]');
        if (lang === 'en') await page.click('[data-testid=lang-switch]');
        await page.fill('input[name=email]', adminEmail);
        await page.fill('input[name=password]', 'adminpass123');
        await page.click('[data-testid=auth-submit]');
        await page.waitForSelector('[data-page="dashboard"]');

        await nav(page, 'admin');
        await page.waitForSelector('[data-testid=ops-health-table]');
        t.match(
          await page.textContent('[data-testid=ops-health-table]'),
          /phone/,
          'the debugger calls show in operation health',
        );
        t.match(
          await page.textContent('[data-testid=margin-table]'),
          /phone/,
          'the debugger calls show in the cost and margin table',
        );
        t.ok(await page.isVisible(`text=${d['admin.marginTitle']}`));
        t.ok(await page.isVisible(`text=${d['admin.revenueTitle']}`));
        t.equal(
          (await page.textContent('[data-stat=revenue-paid] .stat-value'))?.trim(),
          `¥${revenue.totals.paid.CNY.toFixed(2)}`,
          'money received from paid orders',
        );
        t.match(await page.textContent('[data-stat=revenue-orders] .stat-value'), String(revenue.totals.plans));
        t.match(
          await page.textContent('[data-testid=revenue-table]'),
          new Date(Date.now() + 8 * 3600_000).toISOString().slice(0, 10),
          "today's row",
        );
        t.ok(await page.isVisible(`text=${d['admin.opsTitle']}`));
        await shot('1-overview');
        await page.click('[data-tab="1"]');
        await page.waitForSelector('[data-testid=ops-health-table]');

        // Users: found by the customer's key prefix as the keys page shows it.
        const key = await h.services.store.db
          .selectFrom('api_keys')
          .select('prefix')
          .where('user_id', '=', Number(buyer.id))
          .executeTakeFirstOrThrow();
        await page.click('.subnav a[href="/console/admin/users"]');
        await page.waitForSelector('[data-testid=users-table]');
        await page.fill('input[name=q]', key.prefix);
        await page.press('input[name=q]', 'Enter');
        await page.waitForFunction((want) => {
          const rows = [...document.querySelectorAll('[data-testid=users-table] tbody tr')];
          return rows.length === 1 && (rows[0].textContent ?? '').includes(want);
        }, email);
        await shot('2-users-by-key');

        await page.click('.subnav a[href="/console/admin/orders"]');
        await page.waitForSelector('[data-testid=orders-search]');
        await page.fill('[data-testid=orders-search]', email.slice(0, 20).toUpperCase());
        await page.click('[data-testid=orders-search-submit]');
        // The list before the search also holds this order: wait until every row left is this customer's.
        await page.waitForFunction((want) => {
          const rows = [...document.querySelectorAll('[data-testid=admin-orders-table] tbody tr')];
          return rows.length > 0 && rows.every((r) => (r.textContent ?? '').includes(want));
        }, email);
        const rows = await page.locator('[data-testid=admin-orders-table] tbody tr').count();
        t.equal(rows, 1, "only this customer's pending order");
        await shot('3-orders-found');
        await page.click('[data-testid^=cancel-order-]');
        await page.waitForSelector('.notice-ok');
        const order = await h.services.store.db
          .selectFrom('orders')
          .innerJoin('users', 'users.id', 'orders.user_id')
          .select(['orders.status'])
          .where('users.email', '=', email)
          .orderBy('orders.id')
          .execute();
        t.same(
          order.map((o) => o.status),
          ['cancelled', 'paid'],
          'the pending order is cancelled in the database, the paid one untouched',
        );
        await shot('4-order-cancelled');

        await page.click('.subnav a[href="/console/admin/audit"]');
        await page.waitForSelector('[data-testid=audit-table]');
        t.ok(await activeOnScreen(page, '.subnav'), 'the audit section link is in view');
        await page.fill('[data-testid=audit-search]', email);
        await page.press('[data-testid=audit-search]', 'Enter');
        // Only this customer's entries are left, each naming them by email.
        await page.waitForFunction((want) => {
          const rows = [...document.querySelectorAll('[data-testid=audit-table] tbody tr')];
          return rows.length > 0 && rows.every((r) => (r.textContent ?? '').includes(want));
        }, email);
        t.match(
          await page.textContent('[data-testid=audit-table]'),
          /order\.cancel/,
          "the cancel is in the customer's log",
        );
        await shot('5-audit');
        await ctx.close();
      });
    }
  }

  t.test('no page errors or CSP refusals on any journey', async (t) => {
    t.same(problems, []);
  });
}
