// A newcomer on a default install, in Chinese and in English, on a desktop (1280x800) and on a phone (390x844),
// in Debian's Chromium against the shipped operations.yaml and plugins, with a browser set to the OTHER
// language: the front page's sign-up link carries the page's language into the console; the sign-up offer and
// the credit it gave are shown; the quick start's steps end in a 200; switching operation in the debugger
// clears the last answer; the pay page of a manual order speaks in words (method, status, the order number to
// quote, the instructions, what happens next, until when); 2FA shows a QR code and a link the phone can tap,
// and after a wrong code then the right one no stale error is left and nothing covers the recovery codes.
// Screenshots: test/artifacts/console/newcomer/.

import { mkdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { generate } from 'otplib';
import type { Browser, Page, Route } from 'playwright-core';
import t from 'tap';
import { readPaymentSettings } from '../../core/config/payment-env.js';
import { en } from '../../web/src/i18n/en.js';
import { zh } from '../../web/src/i18n/zh.js';
import { consoleInBrowser, haveChromium, SHOTS, watchProblems } from '../helpers/browser.js';
import { createTestApp } from '../helpers/create-test-app.js';
import { type Box, cssPosition, fill, onScreen, pageOverflow, uncovered } from './page-geometry.js';

const DICT = { zh, en };
const LOCALE = { zh: 'zh-CN', en: 'en-US' } as const;
const HTML_LANG = { zh: 'zh-CN', en: 'en' } as const;
const DEVICES = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;
const DIR = `${SHOTS}/newcomer`;
const PASSWORD = 'newcomer2026';

if (haveChromium(t, 'newcomer journeys')) {
  t.setTimeout(600_000);
  let browser: Browser;
  let base: string;
  const problems: string[] = [];

  consoleInBrowser(
    t,
    () =>
      createTestApp({
        operationsYaml: readFileSync('operations.yaml', 'utf8'),
        pluginDirs: [resolve('plugins')],
        settings: { payments: { ...readPaymentSettings({}), trialCreditMicro: 1_000_000, sweepSeconds: 0 } },
      }),
    (x) => ({ browser, base } = x),
  );
  t.before(() => mkdirSync(DIR, { recursive: true }));

  /**
   * Routes another branch of the server adds: passed through when the server answers them, filled in from the
   * test's own settings only where this server does not have them yet (a 404, or an order without the key).
   */
  const served: {
    order?: { instructions?: string | null; expires_at?: string | null };
    payment?: { action: { instructions?: Record<string, string> } };
  } = {};
  const contract = async (page: Page, lang: 'zh' | 'en', expiry: boolean): Promise<void> => {
    await page.route('**/console/api/offer', async (route: Route) => {
      const res = await route.fetch();
      if (res.status() !== 404) return route.fulfill({ response: res });
      await route.fulfill({ json: { trial_tokens: 1 } });
    });
    await page.route(/\/console\/api\/orders\/\d+(\?.*)?$/, async (route: Route) => {
      const res = await route.fetch();
      const body = await res.json();
      if (res.ok() && body.order && !('instructions' in body.order))
        body.order.instructions =
          lang === 'zh'
            ? `请转账到 招商银行 6222 0000 1111，户名 Tollgate，备注订单号 ${body.order.id}。`
            : `Transfer to China Merchants Bank 6222 0000 1111 (Tollgate), quoting order ${body.order.id}.`;
      // An order that expires: on the desktop runs (where this server leaves a manual order open), a day ahead.
      if (res.ok() && body.order && expiry && !body.order.expires_at)
        body.order.expires_at = new Date(Date.now() + 86_400_000).toISOString();
      Object.assign(served, body);
      await route.fulfill({ response: res, json: body });
    });
  };

  /** The quick start's steps, by id, in order. */
  const steps = (page: Page): Promise<(string | null)[]> =>
    page
      .locator('[data-testid=quick-start] [data-step]')
      .evaluateAll((els) =>
        els.map((e) => (e as unknown as { getAttribute(n: string): string | null }).getAttribute('data-step')),
      );

  for (const lang of ['zh', 'en'] as const) {
    for (const device of ['desktop', 'phone'] as const) {
      t.test(`newcomer, ${lang}, ${device}`, async (t) => {
        const d = DICT[lang];
        const other = lang === 'zh' ? 'en' : 'zh';
        const email = `newcomer-${lang}-${device}-${Date.now()}@example.com`;
        // The browser asks for the other language: only the front page's choice can make the console speak this one.
        const ctx = await browser.newContext({ viewport: DEVICES[device], locale: LOCALE[other] });
        const page = await ctx.newPage();
        watchProblems(page, problems);
        const dialogs: string[] = [];
        page.on('dialog', (dlg) => (dialogs.push(dlg.message()), void dlg.accept()));
        await contract(page, lang, device === 'desktop');
        const shot = async (step: string): Promise<void> => {
          await page.screenshot({ path: `${DIR}/${lang}-${device}-${step}.png`, fullPage: true });
          t.ok((await pageOverflow(page)) <= 0, `${step}: nothing wider than the screen`);
        };

        // The front page in this language: its sign-up link carries the language, and the console speaks it.
        await page.goto(`${base}/?lang=${lang}`);
        t.equal(await page.getAttribute('.cta a.btn-primary', 'href'), `/console/register?lang=${lang}`);
        await page.click('.cta a.btn-primary');
        await page.waitForSelector('[data-testid=auth-submit]');
        t.equal(await page.getAttribute('html', 'lang'), HTML_LANG[lang], '<html lang> follows the front page');
        t.equal((await page.textContent('[data-testid=auth-submit]'))?.trim(), d['auth.createAccount']);
        t.equal(
          await (await page.waitForSelector('[data-testid=trial-offer]')).textContent(),
          fill(d['auth.trialOffer'], { n: '1.00' }),
          'the sign-up offer is on the form',
        );
        await shot('1-register');

        // Signed up: the credit is there, and the steps go key -> debugger -> code (no top-up needed).
        await page.fill('input[name=email]', email);
        await page.fill('input[name=password]', PASSWORD);
        await page.click('[data-testid=auth-submit]');
        await page.waitForSelector('[data-page="dashboard"]');
        t.equal(await page.textContent('[data-testid=welcome]'), d['dash.welcome']);
        t.equal(await page.textContent('[data-testid=trial-granted]'), fill(d['dash.trialGranted'], { n: '1.00' }));
        t.notOk(await page.isVisible(`text=${d['dash.lowBalance']}`), 'no low-balance warning beside the welcome');
        t.same(await steps(page), ['key', 'try', 'code']);
        await shot('2-dashboard');

        // Step 1, then step 2 as the dashboard links them: the first call succeeds.
        await page.click('[data-step=key] a');
        await page.waitForSelector('[data-testid=create-key]');
        await page.fill('input[name=name]', 'first');
        await page.click('[data-testid=create-key]');
        await page.waitForSelector('[data-testid=new-secret]');
        await page.click('nav.sidenav a[data-nav="dashboard"]');
        await page.click('[data-step=try] a');
        await page.waitForSelector('[data-testid=dbg-op]');
        await page.selectOption('[data-testid=dbg-op]', 'phone');
        await page.fill('#p-phone', '13800138000');
        await page.click('[data-testid=dbg-send]');
        await page.waitForSelector('[data-testid=dbg-status]', { state: 'attached' });
        t.equal(await page.textContent('[data-testid=dbg-status]'), '200', 'the quick start ends in a success');
        t.equal((await page.textContent('[data-testid=dbg-deducted]'))?.trim(), '0.005');
        // Another operation: the phone answer, its timing and charge are gone.
        await page.selectOption('[data-testid=dbg-op]', 'jiexi');
        t.equal(await page.locator('[data-testid=dbg-status]').count(), 0, 'no status of the previous operation');
        t.equal(await page.locator('[data-testid=dbg-deducted]').count(), 0, 'no charge of the previous operation');
        t.equal((await page.textContent('[data-testid=dbg-result]'))?.trim(), d['debugger.idle']);
        await shot('3-debugger-switched');

        // A package on a default install (manual payment): the pay page in words.
        await page.click('nav.sidenav a[data-nav="billing"]');
        await page.click('[data-testid=order-package-t10]');
        await page.waitForSelector('[data-testid=pay-status]');
        const orderId = /orders\/(\d+)/.exec(page.url())?.[1] ?? '';
        t.match(orderId, /^\d+$/);
        t.equal((await page.textContent('[data-testid=pay-status]'))?.trim(), d['order.pending']);
        t.equal(await page.textContent('[data-testid=pay-method]'), lang === 'zh' ? '人工转账' : 'Manual payment');
        t.equal((await page.textContent('.stats .stat-value'))?.trim(), '¥10.00', 'the exact amount');
        t.equal(await page.textContent('[data-testid=pay-reference]'), orderId, 'the order number to quote');
        t.equal(
          await page.textContent('[data-testid=pay-instructions]'),
          served.order?.instructions || served.payment?.action.instructions?.[lang],
          "the operator's instructions",
        );
        t.equal(await page.textContent('[data-testid=pay-next]'), fill(d['pay.nextManual'], { item: '10.00 TOKEN' }));
        const until = served.order?.expires_at;
        if (until)
          t.match(
            await page.textContent('[data-testid=pay-expires]'),
            d['pay.expiresManual'].split('{time}')[0],
            'until when it can be paid',
          );
        else t.equal(await page.textContent('[data-testid=pay-expires]'), d['pay.noExpiry'], 'it does not expire');
        const card = (await page.textContent('main .card')) ?? '';
        t.notMatch(card, /manual|pending/, 'no internal names');
        await shot('4-order');

        // 2FA: a QR code, a link to tap, the secret; a wrong code, then the right one.
        await page.click('nav.sidenav a[data-nav="security"]');
        await page.fill('input[name=tf_password]', PASSWORD);
        await page.click('[data-testid=tf-setup]');
        const qr = (await (await page.waitForSelector('[data-testid=totp-qr]')).boundingBox()) as Box;
        t.ok(qr.width >= 150 && qr.height >= 150, `a QR code big enough to scan (${qr.width}px)`);
        t.ok(await onScreen(page, '[data-testid=totp-qr]'), 'the QR code is whole on screen');
        t.match(await page.getAttribute('[data-testid=totp-link]', 'href'), /^otpauth:\/\/totp\/Tollgate:/);
        t.ok(await onScreen(page, '[data-testid=totp-link]'), 'the link is whole on screen, to tap');
        await page.click('.enrol-manual summary');
        t.ok(await onScreen(page, '[data-testid=totp-uri]'), 'the URI wraps instead of being clipped');
        t.equal(
          await page.textContent('[data-testid=totp-uri]'),
          await page.getAttribute('[data-testid=totp-link]', 'href'),
        );
        await shot('5-2fa-setup');
        const secret = (await page.textContent('[data-testid=totp-secret]')) ?? '';
        await page.fill('input[name=tf_code]', '000000');
        await page.click('[data-testid=tf-confirm]');
        await page.waitForSelector('.msg-slot .notice-err');
        await page.fill('input[name=tf_code]', await generate({ secret }));
        await page.click('[data-testid=tf-confirm]');
        await page.waitForSelector('[data-testid=recovery-codes] pre');
        t.equal(await page.locator('.notice-err').count(), 0, 'the wrong code is no longer reported after success');
        await page.locator('[data-testid=recovery-codes] pre').scrollIntoViewIfNeeded();
        t.same(await uncovered(page, '[data-testid=recovery-codes] pre'), [], 'nothing covers the recovery codes');
        t.equal(await cssPosition(page, '.msg-slot:not(:empty)'), null, 'no message left at all');
        t.equal(await cssPosition(page, '.msg-slot'), 'static', 'messages stay in the flow of the page');
        await page.screenshot({ path: `${DIR}/${lang}-${device}-6-2fa-codes-viewport.png` });
        await shot('6-2fa-codes');
        t.same(dialogs, [], 'no dialog on the way');
        await ctx.close();
      });
    }
  }

  t.test('no page errors or CSP refusals', async (t) => {
    t.same(problems, []);
  });
}
