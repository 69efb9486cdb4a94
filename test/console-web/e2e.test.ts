// The web console in Debian's Chromium (playwright-core, never a downloaded browser), against the real app with
// the shipped operations.yaml and plugins: register, make a key, call phone in the debugger, run the page's own
// curl example, see the call in the log, log out; then an admin makes a redeem code that the user redeems.
// Screenshots of every main page go to test/artifacts/console/ for a human to look at.

import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import t from 'tap';
import { createUser, findUserByEmail } from '../../core/accounts/users.js';
import { postEntry } from '../../core/billing/ledger.js';
import { toMicro } from '../../core/kernel/money.js';
import { CHINESE_VISITOR, consoleInBrowser, haveChromium, SHOTS, watchProblems } from '../helpers/browser.js';
import { createTestApp, type TestApp } from '../helpers/create-test-app.js';

// Browser globals used inside page.evaluate callbacks: they run in Chromium; the tests are typed without lib DOM.
declare const sessionStorage: { getItem(key: string): string | null };
declare const document: {
  documentElement: { scrollWidth: number };
  querySelector(selector: string): { textContent: string | null } | null;
};
declare const window: { innerWidth: number };

const run = promisify(execFile);

if (haveChromium(t, 'console e2e')) {
  t.setTimeout(300_000);
  let h: TestApp;
  let browser: Browser;
  let base: string;
  const problems: string[] = [];
  const urls: string[] = [];
  const user = { email: `e2e-${Date.now()}@example.com`, password: 'secret123pass' };

  const watch = (page: Page): void => {
    watchProblems(page, problems);
    page.on('request', (req) => urls.push(req.url()));
  };
  const newPage = async (width = 1280, height = 860): Promise<{ ctx: BrowserContext; page: Page }> => {
    const ctx = await browser.newContext({ ...CHINESE_VISITOR, viewport: { width, height }, acceptDownloads: true });
    const page = await ctx.newPage();
    watch(page);
    return { ctx, page };
  };
  const shot = (page: Page, name: string): Promise<Buffer> =>
    page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });
  const nav = async (page: Page, name: string): Promise<void> => {
    await page.click(`nav.sidenav a[data-nav="${name}"]`);
    await page.waitForSelector(`[data-page="${name}"]`);
  };
  const login = async (page: Page, email: string, password: string): Promise<void> => {
    await page.goto(`${base}/console/login`);
    await page.fill('input[name=email]', email);
    await page.fill('input[name=password]', password);
    await page.click('[data-testid=auth-submit]');
    await page.waitForSelector('[data-page="dashboard"]');
  };
  const numberIn = async (page: Page, selector: string): Promise<number> =>
    Number((await page.textContent(selector))?.replace(/[^\d.-]/g, ''));

  consoleInBrowser(
    t,
    () => createTestApp({ operationsYaml: readFileSync('operations.yaml', 'utf8'), pluginDirs: [resolve('plugins')] }),
    (x) => ({ h, browser, base } = x),
  );

  t.test('register, key, debugger call, curl example, call log, log out', async (t) => {
    const { ctx, page } = await newPage();
    const first = await page.goto(`${base}/console/`);
    t.match(
      first?.headers()['content-security-policy'] ?? '',
      /default-src 'self'; script-src 'self'; style-src 'self'/,
    );
    await page.waitForURL(/\/console\/login/);
    await shot(page, 'login-zh');
    await page.click('a[href="/console/register"]');
    await page.fill('input[name=email]', user.email);
    await page.fill('input[name=password]', user.password);
    await page.click('[data-testid=auth-submit]');
    await page.waitForSelector('[data-page="dashboard"]');
    t.ok(await page.isVisible('text=快速开始'), 'new accounts see the quick start (Chinese by default)');

    // The money a real user would add in billing; given directly so this run needs no admin.
    const row = await findUserByEmail(h.services.store.db, user.email);
    await postEntry(h.services.store.db, { userId: row!.id, amount: toMicro(1), kind: 'grant', ref: `e2e:${row!.id}` });

    await nav(page, 'keys');
    await page.fill('input[name=name]', 'e2e "key"');
    await page.click('[data-testid=create-key]');
    const secret = (await page.textContent('[data-testid=new-secret]'))?.trim() ?? '';
    t.match(secret, /^sk_/, 'the secret is shown once after creation');
    await shot(page, 'keys-created-zh');
    await nav(page, 'docs');
    await nav(page, 'keys');
    await page.waitForSelector('[data-testid=keys-table]');
    t.notOk((await page.content()).includes(secret), 'the secret is not shown again on the next visit');

    // The key made in this tab is offered by the debugger (kept in memory, never fetched again).
    await nav(page, 'debugger');
    t.match(await page.textContent('[data-testid=dbg-key] option:checked'), /e2e "key"/);
    await page.selectOption('[data-testid=dbg-op]', 'phone');
    await page.fill('#p-phone', '13800138000');
    await page.click('[data-testid=dbg-send]');
    await page.waitForSelector('[data-testid=dbg-status]', { state: 'attached' });
    t.equal(await page.textContent('[data-testid=dbg-status]'), '200');
    t.equal((await page.textContent('[data-testid=dbg-deducted]'))?.trim(), '0.005');
    // 1 TOKEN granted here plus the sign-up trial's 1 TOKEN, less the call.
    t.equal(await numberIn(page, '[data-testid=dbg-remaining]'), 1.995);
    t.match(await page.textContent('[data-testid=dbg-server-ms]'), /ms/, 'Server-Timing is shown');
    const body = JSON.parse((await page.textContent('[data-testid=dbg-body]')) ?? '{}') as {
      success: boolean;
      data: Record<string, unknown>;
      request_id: string;
    };
    t.equal(body.success, true);
    t.equal(body.data.phone, '13800138000');
    await shot(page, 'debugger-zh');

    const curl = (await page.textContent('[data-testid=code-example]')) ?? '';
    t.match(curl, /^curl /);
    t.ok(curl.includes(secret) && curl.includes(base), 'the curl example is the exact request, with the key');
    const out = await run('sh', ['-c', curl], { timeout: 20_000 });
    t.same((JSON.parse(out.stdout) as { data: unknown }).data, body.data, 'the copied curl returns the same data');
    for (const lang of ['javascript', 'python', 'php', 'go', 'java']) {
      await page.click(`[data-tab=${lang}]`);
      t.ok((await page.textContent('[data-testid=code-example]'))?.includes(secret), `${lang} example carries the key`);
    }
    await shot(page, 'debugger-java-zh');

    await nav(page, 'usage');
    await page.waitForSelector('[data-testid=calls-table]');
    t.ok(
      (await page.textContent('[data-testid=calls-table]'))?.includes(body.request_id),
      'the call log shows the debugger call',
    );
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=export-csv]')]);
    const csv = readFileSync((await download.path())!, 'utf8');
    t.ok(
      csv.startsWith('\uFEFF请求 ID,时间（') && csv.includes(body.request_id),
      'CSV export downloads through a Blob with the token in a header, BOM and Chinese header first',
    );
    await shot(page, 'usage-zh');

    await nav(page, 'dashboard');
    await page.waitForSelector('.chart');
    await shot(page, 'dashboard-zh');
    await nav(page, 'docs');
    await shot(page, 'docs-zh');
    await page.click('a[data-op="phone"]');
    await page.waitForSelector('text=13800138000');
    await shot(page, 'docs-phone-zh');
    await nav(page, 'billing');
    await shot(page, 'billing-zh');

    // Admin pages: hidden from users, and refused by the server even when asked directly.
    t.notOk(await page.isVisible('nav.sidenav a[data-nav="admin"]'));
    const adminStatus = await page.evaluate(
      async () =>
        (
          await fetch('/console/api/admin/users', {
            headers: { Authorization: `Bearer ${sessionStorage.getItem('tollgate.token') ?? ''}` },
          })
        ).status,
    );
    t.equal(adminStatus, 403);

    await page.click('[data-testid=lang-switch]');
    await page.waitForSelector('text=TOKEN packages');
    await shot(page, 'billing-en');
    await nav(page, 'dashboard');
    await page.waitForSelector('text=Calls and spend, last 30 days');
    await shot(page, 'dashboard-en');
    await nav(page, 'debugger');
    await shot(page, 'debugger-en');
    await nav(page, 'keys');
    await shot(page, 'keys-en');
    await page.click('[data-testid=lang-switch]');

    await page.click('[data-testid=logout]');
    await page.waitForURL(/\/console\/login/);
    t.equal(await page.evaluate(() => sessionStorage.getItem('tollgate.token')), null, 'logout clears the token');
    await ctx.close();

    // Phone width: nothing wider than the screen.
    const phone = await newPage(390, 844);
    await login(phone.page, user.email, user.password);
    await shot(phone.page, 'phone-dashboard-zh');
    const overflow = await phone.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    t.ok(overflow <= 0, `no horizontal overflow on a phone (${overflow}px)`);
    await nav(phone.page, 'debugger');
    await shot(phone.page, 'phone-debugger-zh');
    await nav(phone.page, 'usage');
    await shot(phone.page, 'phone-usage-zh');
    t.ok(
      (await phone.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)) <= 0,
      'usage fits the phone too',
    );
    await phone.ctx.close();
  });

  t.test('admin makes a redeem code for t10, the user redeems it in billing', async (t) => {
    await createUser(h.services.store.db, 'boss@example.com', 'adminpass123', 'admin');
    const admin = await newPage();
    await login(admin.page, 'boss@example.com', 'adminpass123');
    await nav(admin.page, 'admin');
    await shot(admin.page, 'admin-stats-zh');
    await admin.page.click('.subnav a[href="/console/admin/codes"]');
    await admin.page.waitForSelector('[data-testid=codes-submit]');
    await admin.page.selectOption('select[name=item]', 'package:t10');
    await admin.page.fill('input[name=count]', '2');
    await admin.page.click('[data-testid=codes-submit]');
    const codes = ((await admin.page.textContent('[data-testid=generated-codes]')) ?? '').split('\n').filter(Boolean);
    t.equal(codes.length, 2);
    await admin.page.waitForSelector('[data-testid=batches-table]');
    await shot(admin.page, 'admin-codes-zh');
    await admin.page.click('.subnav a[href="/console/admin/users"]');
    await admin.page.waitForSelector('[data-testid=users-table]');
    await shot(admin.page, 'admin-users-zh');
    await admin.page.click('.subnav a[href="/console/admin/orders"]');
    await admin.page.waitForSelector('[data-tab=pending]');
    await shot(admin.page, 'admin-orders-zh');
    await admin.page.click('[data-testid=logout]');
    await admin.ctx.close();

    const { ctx, page } = await newPage();
    await login(page, user.email, user.password);
    await nav(page, 'billing');
    const before = await numberIn(page, '[data-stat=billing-available] .stat-value');
    await page.fill('[data-testid=redeem-code]', codes[0]);
    await page.click('[data-testid=redeem-submit]');
    await page.waitForSelector('.notice-ok');
    await page.waitForFunction(
      (b) =>
        Number(
          document.querySelector('[data-stat=billing-available] .stat-value')?.textContent?.replace(/[^\d.-]/g, ''),
        ) !== b,
      before,
    );
    const after = await numberIn(page, '[data-stat=billing-available] .stat-value');
    t.equal(Math.round((after - before) * 1e6), 10_000_000, `balance rose by 10 (${before} -> ${after})`);
    await page.waitForSelector('[data-testid=ledger-table]');
    await shot(page, 'billing-redeemed-zh');
    await page.fill('[data-testid=redeem-code]', codes[0]);
    await page.click('[data-testid=redeem-submit]');
    await page.waitForSelector('.notice-err');
    t.pass('a used code is refused');
    await ctx.close();
    await h.assertReconciled();
  });

  t.test('no CSP violations, no page errors, no token in any URL', async (t) => {
    t.same(problems, []);
    t.same(
      urls.filter((u) => /ut_[A-Za-z0-9_-]{10,}/.test(u)),
      [],
    );
  });
}
