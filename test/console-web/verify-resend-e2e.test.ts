// Email confirmation in Debian's Chromium when the operator requires it (REQUIRE_EMAIL_VERIFICATION), with no SMTP
// configured (links read from the outbox table): a customer who lost the mail, or whose link was used or expired,
// reaches a new one from every place that tells them to confirm (the page after sign-up, a log-in refused with
// EMAIL_NOT_VERIFIED, a refused link), asks for it by email, and confirms with the newest link.

import type { Browser, Page } from 'playwright-core';
import t, { type Test } from 'tap';
import { readAccountSettings } from '../../core/config/account-env.js';
import { en } from '../../web/src/i18n/en.js';
import { zh } from '../../web/src/i18n/zh.js';
import { consoleInBrowser, haveChromium, SHOTS, watchProblems } from '../helpers/browser.js';
import { createTestApp, type TestApp } from '../helpers/create-test-app.js';

declare const localStorage: { setItem(key: string, value: string): void };

const DICT = { zh, en };
const PASSWORD = 'confirm2026';
const RESEND = 'a[href="/console/verify-resend"]';

if (haveChromium(t, 'verify-resend e2e')) {
  t.setTimeout(240_000);
  let h: TestApp;
  let browser: Browser;
  let base: string;
  const problems: string[] = [];

  consoleInBrowser(
    t,
    () => createTestApp({ settings: { accounts: readAccountSettings({ REQUIRE_EMAIL_VERIFICATION: 'true' }, 8080) } }),
    (x) => ({ h, browser, base } = x),
  );

  const newPage = async (lang: 'zh' | 'en'): Promise<Page> => {
    const ctx = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'en-US' });
    await ctx.addInitScript((l) => localStorage.setItem('tollgate.lang', l), lang);
    const page = await ctx.newPage();
    watchProblems(page, problems, { csp: false });
    return page;
  };

  /** The confirmation links mailed to `to`, newest first (the mail is sent after the answer: polled). */
  const verifyLinks = async (to: string, atLeast: number): Promise<string[]> => {
    for (let i = 0; i < 50; i++) {
      const rows = await h.services.store.db
        .selectFrom('mail_outbox')
        .select('text_body')
        .where('to_addr', '=', to)
        .orderBy('id', 'desc')
        .execute();
      const links = rows.flatMap((r) => {
        const m = /http:\/\/localhost:\d+(\/console\/verify\?token=[a-z]{2}_[A-Za-z0-9_-]{43})/.exec(r.text_body);
        return m ? [m[1]] : [];
      });
      if (links.length >= atLeast) return links;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`fewer than ${atLeast} confirmation mails for ${to}`);
  };

  /** The resend page: the email asked for, the neutral answer in the page's language. */
  const resend = async (t: Test, page: Page, lang: 'zh' | 'en', email: string): Promise<void> => {
    await page.click(RESEND);
    await page.waitForSelector('[data-testid=resend-submit]');
    t.equal(await page.textContent('[data-testid=resend-submit]'), DICT[lang]['account.resendSubmit']);
    await page.fill('input[name=email]', email);
    await page.click('[data-testid=resend-submit]');
    await page.waitForSelector('.msg-slot .notice-ok');
    t.equal(await page.textContent('.msg-slot .notice-ok'), DICT[lang]['account.resendSent']);
  };

  for (const lang of ['zh', 'en'] as const) {
    t.test(`${lang}: sign-up, lost mail, refused log-in, used link: each leads to a new link`, async (t) => {
      const email = `confirm-${lang}-${Date.now()}@example.com`;
      const page = await newPage(lang);
      await page.goto(`${base}/console/register`);
      await page.fill('input[name=email]', email);
      await page.fill('input[name=password]', PASSWORD);
      await page.click('[data-testid=auth-submit]');
      // After sign-up: "check your mail", and the way to a new one if it never comes.
      await page.waitForSelector(`.auth-card ${RESEND}`);
      t.equal(await page.textContent(`.auth-card ${RESEND}`), DICT[lang]['account.resendLink']);
      const first = await verifyLinks(email, 1);
      await resend(t, page, lang, email);
      const [newest, older] = await verifyLinks(email, 2);
      t.not(newest, older, 'a new link was mailed');
      t.equal(first.length, 1);

      // Logging in before confirming: refused, with the way to a new link under the message.
      await page.goto(`${base}/console/login`);
      await page.fill('input[name=email]', email);
      await page.fill('input[name=password]', PASSWORD);
      await page.click('[data-testid=auth-submit]');
      await page.waitForSelector(`.msg-slot .notice-err ${RESEND}`);
      t.match(
        await page.textContent('.msg-slot .notice-err'),
        lang === 'zh' ? /请先确认邮箱/ : /Confirm your email first/,
      );
      await page.screenshot({ path: `${SHOTS}/verify-refused-login-${lang}.png`, fullPage: true });

      // The newest link confirms; used again, it is refused, and the way to a new one is offered there too.
      await page.goto(`${base}${newest}`);
      await page.waitForSelector('.auth-card .notice-ok');
      t.match(await page.textContent('.auth-card .notice-ok'), DICT[lang]['account.verified']);
      await page.goto(`${base}${newest}`);
      await page.waitForSelector(`.auth-card .notice-err ${RESEND}`);
      await page.screenshot({ path: `${SHOTS}/verify-used-link-${lang}.png`, fullPage: true });
      await resend(t, page, lang, email);
      // Confirmed already: the same neutral answer, and no further mail.
      await new Promise((r) => setTimeout(r, 300));
      t.equal((await verifyLinks(email, 2)).length, 2, 'a confirmed account gets no new link');

      t.equal(
        (await h.client.post('/console/api/login', { email, password: PASSWORD })).status,
        200,
        'the account logs in once confirmed',
      );
      await page.context().close();
    });
  }

  t.test('no console problems along the way', async (t) => {
    t.same(problems, []);
  });
}
