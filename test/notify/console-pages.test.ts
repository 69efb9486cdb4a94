// The notification, key-rotation and admin audit pages in Debian's Chromium (playwright-core): a user sets a
// low-balance line and adds a webhook (secret shown once), rotates a key (grace asked in a prompt), and an admin
// finds both changes in the audit log and opens the user's drill-down. No CSP violations or page errors.

import type { Browser, Page } from 'playwright-core';
import t from 'tap';
import { admin, consoleUser } from '../console/support.js';
import { CHINESE_VISITOR, consoleInBrowser, haveChromium, watchProblems } from '../helpers/browser.js';
import { createTestApp, type TestApp } from '../helpers/create-test-app.js';

// Browser globals used inside the init script: it runs in Chromium; the tests are typed without lib DOM.
declare const sessionStorage: { setItem(key: string, value: string): void };

if (haveChromium(t, 'console pages')) {
  t.setTimeout(180_000);
  let h: TestApp;
  let browser: Browser;
  let base: string;
  const problems: string[] = [];

  consoleInBrowser(
    t,
    () => createTestApp(),
    (x) => ({ h, browser, base } = x),
  );

  const open = async (token: string, user: { id: number; email: string; role: 'user' | 'admin' }): Promise<Page> => {
    const ctx = await browser.newContext({ ...CHINESE_VISITOR, viewport: { width: 1280, height: 900 } });
    // The console keeps its token and user in sessionStorage: seed them as a login would.
    const session = { token, user: JSON.stringify({ ...user, status: 'active', created_at: null }) };
    await ctx.addInitScript((x: { token: string; user: string }) => {
      sessionStorage.setItem('tollgate.token', x.token);
      sessionStorage.setItem('tollgate.user', x.user);
    }, session);
    const page = await ctx.newPage();
    watchProblems(page, problems);
    return page;
  };

  t.test('alerts, webhook, rotation; then the admin audit and drill-down', async (t) => {
    const u = await consoleUser(h, 2);
    const page = await open(u.token, { id: u.userId, email: u.email, role: 'user' });
    await page.goto(`${base}/console/notify`);
    await page.waitForSelector('[data-page="notify"] input[name=balance_threshold]');
    await page.fill('input[name=balance_threshold]', '1.5');
    await page.click('[data-page="notify"] form button[type=submit] >> nth=0');
    await page.waitForSelector('.msg-slot .notice');
    t.same(
      (await h.client.get('/console/api/alerts', u.headers)).body.alerts.balance_threshold,
      1.5,
      'saved through the page',
    );

    await page.fill('input[name=url]', 'https://hooks.example.com/tollgate');
    await page.click('[data-page="notify"] form >> nth=1 >> button[type=submit]');
    await page.waitForSelector('code.secret');
    t.match(await page.textContent('code.secret'), /^whsec_/, 'the signing secret is shown once');
    t.match(await page.textContent('[data-page="notify"] table'), /hooks\.example\.com\/tollgate/);

    await page.goto(`${base}/console/keys`);
    page.once('dialog', (d) => void d.accept('1'));
    await page.click(`[data-testid=rotate-key-${u.keyId}]`);
    await page.waitForSelector('code.secret');
    const secret = (await page.textContent('code.secret'))?.trim() ?? '';
    t.match(secret, /^sk_/);
    t.equal((await h.client.get('/api/echo?msg=x', { 'X-API-Key': secret })).status, 200, 'the new secret works');
    t.equal(
      (await h.client.get('/api/echo?msg=y', { 'X-API-Key': u.key })).status,
      200,
      'the old one too, for an hour',
    );

    const a = await admin(h);
    const ap = await open(a.token, { id: a.userId, email: 'admin', role: 'admin' });
    await ap.goto(`${base}/console/admin/audit`);
    await ap.waitForSelector('[data-testid=audit-table]');
    const audit = (await ap.textContent('[data-testid=audit-table]')) ?? '';
    for (const action of ['alerts.update', 'webhook.create', 'key.rotate']) t.ok(audit.includes(action), action);
    await ap.goto(`${base}/console/admin/users/${u.userId}`);
    await ap.waitForSelector(`text=${u.email}`);
    t.match(await ap.textContent('[data-page="admin"]'), /key\.rotate/, 'the drill-down lists the audit too');
    t.same(problems, []);
  });
}
