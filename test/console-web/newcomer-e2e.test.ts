// A newcomer on a default install, in Chinese and in English, on a desktop (1280x800) and on a phone (390x844),
// in Debian's Chromium against the shipped operations.yaml and plugins, with a browser set to the OTHER
// language: the front page's sign-up link carries the page's language into the console; the sign-up offer and
// the credit it gave are shown; the quick start's steps end in a 200; switching operation in the debugger
// clears the last answer; the pay page of a manual order speaks in words (method, status, the order number to
// quote, the instructions, what happens next, until when); 2FA shows a QR code and a link the phone can tap,
// and after a wrong code then the right one no stale error is left and nothing covers the recovery codes.
// Screenshots: test/artifacts/console/newcomer/.

import { mkdirSync } from 'node:fs';
import { generate } from 'otplib';
import type { Browser, Page, Route } from 'playwright-core';
import t, { type Test } from 'tap';
import { en } from '../../web/src/i18n/en.js';
import { zh } from '../../web/src/i18n/zh.js';
import { consoleInBrowser, haveChromium, SHOTS, watchProblems } from '../helpers/browser.js';
import { createShippedApp } from '../helpers/create-test-app.js';
import { type Box, cssPosition, fill, onScreen, pageOverflow, scrollToBottomEdge, uncovered } from './page-geometry.js';

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
    () => createShippedApp(1_000_000),
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
      // One page per language and device, each feature a subtest of its own: one failing does not hide the next.
      t.test(`newcomer, ${lang}, ${device}`, async (t) => {
        const d = DICT[lang];
        const other = lang === 'zh' ? 'en' : 'zh';
        const email = `newcomer-${lang}-${device}-${Date.now()}@example.com`;
        // The browser asks for the other language: only the front page's choice can make the console speak this one.
        const ctx = await browser.newContext({ viewport: DEVICES[device], locale: LOCALE[other] });
        t.teardown(() => ctx.close());
        const page = await ctx.newPage();
        watchProblems(page, problems);
        const dialogs: string[] = [];
        page.on('dialog', (dlg) => (dialogs.push(dlg.message()), void dlg.accept()));
        await contract(page, lang, device === 'desktop');
        const shot = async (t: Test, step: string): Promise<void> => {
          await page.screenshot({ path: `${DIR}/${lang}-${device}-${step}.png`, fullPage: true });
          t.ok((await pageOverflow(page)) <= 0, `${step}: nothing wider than the screen`);
        };
        const nav = async (name: string): Promise<void> => {
          await page.click(`nav.sidenav a[data-nav="${name}"]`);
          await page.waitForSelector(`[data-page="${name}"]`);
        };

        await t.test("the front page's language is carried into the console", async (t) => {
          await page.goto(`${base}/?lang=${lang}`);
          t.equal(await page.getAttribute('.cta a.btn-primary', 'href'), `/console/register?lang=${lang}`);
          await page.click('.cta a.btn-primary');
          await page.waitForSelector('[data-testid=auth-submit]');
          t.equal(await page.getAttribute('html', 'lang'), HTML_LANG[lang], '<html lang> follows the front page');
          t.equal((await page.textContent('[data-testid=auth-submit]'))?.trim(), d['auth.createAccount']);
          await shot(t, '1-register');
        });

        await t.test('the sign-up offer, then the credit it gave and steps that need no top-up', async (t) => {
          const offer = await page.waitForSelector('[data-testid=trial-offer]', { timeout: 5000 }).catch(() => null);
          t.equal(await offer?.textContent(), fill(d['auth.trialOffer'], { n: '1.00' }), 'the offer is on the form');
          await page.fill('input[name=email]', email);
          await page.fill('input[name=password]', PASSWORD);
          await page.click('[data-testid=auth-submit]');
          await page.waitForSelector('[data-page="dashboard"]');
          const text = async (sel: string) => page.textContent(sel, { timeout: 2000 }).catch(() => null);
          t.equal(await text('[data-testid=welcome]'), d['dash.welcome']);
          t.equal(await text('[data-testid=trial-granted]'), fill(d['dash.trialGranted'], { n: '1.00' }));
          t.notOk(await page.isVisible(`text=${d['dash.lowBalance']}`), 'no low-balance warning beside the welcome');
          t.same(await steps(page), ['key', 'try', 'code']);
          await shot(t, '2-dashboard');
        });

        await t.test("the quick start's steps end in a 200; another operation clears the answer", async (t) => {
          // Step 1 then step 2, as the dashboard links them.
          await page.click('.steps li:nth-child(1) a');
          await page.waitForSelector('[data-testid=create-key]');
          await page.fill('input[name=name]', 'first');
          await page.click('[data-testid=create-key]');
          await page.waitForSelector('[data-testid=new-secret]');
          await nav('dashboard');
          await page.click(`.steps li:has-text("${d['dash.step2']}") a`);
          await page.waitForSelector('[data-testid=dbg-op]');
          await page.selectOption('[data-testid=dbg-op]', 'phone');
          await page.fill('#p-phone', '13800138000');
          await page.click('[data-testid=dbg-send]');
          await page.waitForSelector('[data-testid=dbg-status]', { state: 'attached' });
          t.equal(await page.textContent('[data-testid=dbg-status]'), '200', 'the quick start ends in a success');
          t.equal((await page.textContent('[data-testid=dbg-deducted]'))?.trim(), '0.005');
          await page.selectOption('[data-testid=dbg-op]', 'jiexi');
          t.equal(await page.locator('[data-testid=dbg-status]').count(), 0, 'no status of the previous operation');
          t.equal(await page.locator('[data-testid=dbg-deducted]').count(), 0, 'no charge of the previous operation');
          t.equal((await page.textContent('[data-testid=dbg-result]'))?.trim(), d['debugger.idle']);
          await shot(t, '3-debugger-switched');
        });

        await t.test('the pay page of a manual order, in words', async (t) => {
          await nav('billing');
          await page.click('[data-testid=order-package-t10]');
          await page.waitForSelector('[data-testid=pay-status]');
          const orderId = /orders\/(\d+)/.exec(page.url())?.[1] ?? '';
          t.match(orderId, /^\d+$/);
          const text = async (sel: string) => page.textContent(sel, { timeout: 2000 }).catch(() => null);
          t.equal((await text('[data-testid=pay-status]'))?.trim(), d['order.pending']);
          t.equal(await text('[data-testid=pay-method]'), lang === 'zh' ? '人工转账' : 'Manual payment');
          t.equal((await text('.stats .stat-value'))?.trim(), '¥10.00', 'the exact amount');
          t.equal(await text('[data-testid=pay-reference]'), orderId, 'the order number to quote');
          t.equal(
            await text('[data-testid=pay-instructions]'),
            served.order?.instructions || served.payment?.action.instructions?.[lang],
            "the operator's instructions",
          );
          t.equal(await text('[data-testid=pay-next]'), fill(d['pay.nextManual'], { item: '10.00 TOKEN' }));
          const until = served.order?.expires_at;
          if (until)
            t.match(
              await text('[data-testid=pay-expires]'),
              d['pay.expiresManual'].split('{time}')[0],
              'until when it can be paid',
            );
          else t.equal(await text('[data-testid=pay-expires]'), d['pay.noExpiry'], 'it does not expire');
          t.notMatch((await page.textContent('main .card')) ?? '', /manual|pending/, 'no internal names');
          await shot(t, '4-order');
        });

        await t.test('2FA: a QR code and a link to tap; no stale error; nothing over the codes', async (t) => {
          await nav('security');
          await page.fill('input[name=tf_password]', PASSWORD);
          await page.click(`button:has-text("${d['security.setUp']}")`);
          await page.waitForSelector('input[name=tf_code]');
          const qr = (await page
            .waitForSelector('[data-testid=totp-qr]', { timeout: 3000 })
            .then((e) => e.boundingBox())
            .catch(() => null)) as Box | null;
          t.ok(qr && qr.width >= 150 && qr.height >= 150, `a QR code big enough to scan (${qr?.width}px)`);
          t.ok(await onScreen(page, '[data-testid=totp-qr]'), 'the QR code is whole on screen');
          t.match(
            await page.getAttribute('[data-testid=totp-link]', 'href', { timeout: 2000 }).catch(() => null),
            /^otpauth:\/\/totp\/Tollgate:/,
          );
          t.ok(await onScreen(page, '[data-testid=totp-link]'), 'the link is whole on screen, to tap');
          await page.click('.enrol-manual summary', { timeout: 2000 }).catch(() => undefined);
          t.ok(await onScreen(page, '[data-testid=totp-uri]'), 'the URI wraps instead of being clipped');
          await shot(t, '5-2fa-setup');
          const uri = (await page.textContent('[data-testid=totp-uri]')) ?? '';
          const secret = /secret=([A-Z2-7]+)/.exec(uri)?.[1] ?? '';
          await page.fill('input[name=tf_code]', '000000');
          await page.click(`button:has-text("${d['security.confirm']}")`);
          await page.waitForSelector('.msg-slot .notice-err');
          t.equal(
            await cssPosition(page, '.msg-slot:not(:empty)'),
            'static',
            'the message stays in the flow of the page',
          );
          await page.fill('input[name=tf_code]', await generate({ secret }));
          await page.click(`button:has-text("${d['security.confirm']}")`);
          await page.waitForSelector('[data-testid=recovery-codes] pre');
          t.equal(await page.locator('.notice-err').count(), 0, 'the wrong code is no longer reported after success');
          // Read from the bottom of the screen up (where a message stuck to the bottom would sit).
          await scrollToBottomEdge(page, '[data-testid=recovery-codes] pre');
          t.same(await uncovered(page, '[data-testid=recovery-codes] pre'), [], 'nothing covers the recovery codes');
          await page.screenshot({ path: `${DIR}/${lang}-${device}-6-2fa-codes-viewport.png` });
          await shot(t, '6-2fa-codes');
          t.same(dialogs, [], 'no dialog on the way');
        });
      });
    }
  }

  t.test('no page errors or CSP refusals', async (t) => {
    t.same(problems, []);
  });
}
