// The password-reset flow in Debian's Chromium against the real app, with no SMTP configured (a fresh machine):
// "forgot password" from the login page, the link read from the outbox table, the reset page (token dropped
// from the address bar), login with the new password; the security page; and the admin's mail outbox page
// listing that mail. Screenshots go to test/artifacts/console/.

import type { Browser, Page } from 'playwright-core';
import t from 'tap';
import { createUser } from '../../core/accounts/users.js';
import { consoleInBrowser, haveChromium, SHOTS, watchProblems } from '../helpers/browser.js';
import { createTestApp, type TestApp, testPasswordHash } from '../helpers/create-test-app.js';

declare const location: { href: string };
declare const localStorage: { setItem(key: string, value: string): void };

if (haveChromium(t, 'reset e2e')) {
  t.setTimeout(240_000);
  let h: TestApp;
  let browser: Browser;
  let base: string;
  const problems: string[] = [];

  consoleInBrowser(
    t,
    () => createTestApp(),
    (x) => ({ h, browser, base } = x),
  );

  const newPage = async (): Promise<Page> => {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: 'en-US' });
    // Chinese chosen in the console earlier, in a browser that asks for English: the choice wins.
    await ctx.addInitScript(() => localStorage.setItem('tollgate.lang', 'zh'));
    const page = await ctx.newPage();
    watchProblems(page, problems, { csp: false });
    return page;
  };

  /** The newest reset link mailed to `to`, polled from the outbox (the mail is sent after the answer). */
  const resetLink = async (to: string): Promise<string> => {
    for (let i = 0; i < 50; i++) {
      const row = await h.services.store.db
        .selectFrom('mail_outbox')
        .selectAll()
        .where('to_addr', '=', to)
        .orderBy('id', 'desc')
        .executeTakeFirst();
      const m = row && /http:\/\/localhost:\d+(\/console\/reset\?token=rt_[A-Za-z0-9_-]{43})/.exec(row.text_body);
      if (m) return m[1];
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`no reset mail for ${to}`);
  };

  t.test('forgot password -> mailed link -> new password -> login; admin sees the mail in the outbox', async (t) => {
    const email = `reset-${Date.now()}@example.com`;
    await createUser(h.services.store.db, email, 'password123', 'user', await testPasswordHash());
    const page = await newPage();
    await page.goto(`${base}/console/login`);
    await page.click('a[href="/console/forgot"]');
    await page.fill('input[name=email]', email);
    await page.click('[data-testid=forgot-submit]');
    await page.waitForSelector('.notice-ok');
    // The console speaks the Chinese chosen and asks in its UI language, so the mail is in Chinese too.
    t.match(await page.textContent('.notice-ok'), /重置链接已发出/);

    const path = await resetLink(email);
    await page.goto(`${base}${path}`);
    await page.waitForSelector('[data-testid=reset-submit]');
    t.notMatch(await page.evaluate(() => location.href), /token=/, 'the token leaves the address bar at once');
    await page.fill('input[name=password]', 'brandnew456');
    await page.fill('input[name=password2]', 'different789');
    await page.click('[data-testid=reset-submit]');
    await page.waitForSelector('.notice-err');
    await page.fill('input[name=password2]', 'brandnew456');
    await page.click('[data-testid=reset-submit]');
    await page.waitForSelector('.notice-ok');
    await page.screenshot({ path: `${SHOTS}/reset-done-zh.png`, fullPage: true });

    t.equal(
      (await h.client.post('/console/api/login', { email, password: 'password123' })).status,
      401,
      'the old password is dead',
    );
    await page.click('.notice-ok a[href="/console/login"]');
    await page.fill('input[name=email]', email);
    await page.fill('input[name=password]', 'brandnew456');
    await page.click('[data-testid=auth-submit]');
    await page.waitForSelector('[data-page="dashboard"]');

    // The same link again is refused.
    await page.goto(`${base}${path}`);
    await page.fill('input[name=password]', 'another789x');
    await page.fill('input[name=password2]', 'another789x');
    await page.click('[data-testid=reset-submit]');
    await page.waitForSelector('.notice-err');
    t.match(await page.textContent('.notice-err'), /此链接无效、已过期或已被使用/);

    await page.goto(`${base}/console/security`);
    await page.waitForSelector('[data-page="security"] [data-testid=change-password]');
    await page.screenshot({ path: `${SHOTS}/security-zh.png`, fullPage: true });

    const adminEmail = `admin-${Date.now()}@example.com`;
    await createUser(h.services.store.db, adminEmail, 'password123', 'admin', await testPasswordHash());
    const adminPage = await newPage();
    await adminPage.goto(`${base}/console/login`);
    await adminPage.fill('input[name=email]', adminEmail);
    await adminPage.fill('input[name=password]', 'password123');
    await adminPage.click('[data-testid=auth-submit]');
    await adminPage.waitForSelector('[data-page="dashboard"]');
    await adminPage.goto(`${base}/console/admin/mail`);
    await adminPage.waitForSelector('[data-testid=mail-outbox]');
    const outbox = (await adminPage.textContent('[data-testid=mail-outbox]')) ?? '';
    t.match(outbox, email);
    t.match(outbox, '重置您的 Tollgate 密码');
    await adminPage.screenshot({ path: `${SHOTS}/admin-mail-zh.png`, fullPage: true });
    t.same(problems, []);
  });
}
