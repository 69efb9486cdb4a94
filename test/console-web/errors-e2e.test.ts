// Errors and unavailable operations in Debian's Chromium, zh and en, against the shipped operations.yaml with no
// parcel provider configured: docs and debugger mark kuaid unavailable; a call from the debugger is explained in
// words plus what to do, in the UI's language, the raw body only behind a toggle; nothing is charged; the admin
// overview says which settings would enable it. Screenshots go to test/artifacts/console/.

import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import t from 'tap';
import { createApiKey } from '../../core/accounts/api-keys.js';
import { createUser } from '../../core/accounts/users.js';
import { postEntry } from '../../core/billing/ledger.js';
import { CHINESE_VISITOR, consoleInBrowser, haveChromium, SHOTS, watchProblems } from '../helpers/browser.js';
import { createTestApp, type TestApp, testPasswordHash } from '../helpers/create-test-app.js';

declare const localStorage: { setItem(key: string, value: string): void };

if (haveChromium(t, 'errors e2e')) {
  t.setTimeout(240_000);
  let h: TestApp;
  let browser: Browser;
  let base: string;
  const problems: string[] = [];

  consoleInBrowser(
    t,
    () => {
      for (const v of ['KUAIDI100_CUSTOMER', 'KUAIDI100_KEY', 'KDNIAO_BUSINESS_ID', 'KDNIAO_API_KEY'])
        delete process.env[v];
      return createTestApp({
        operationsYaml: readFileSync('operations.yaml', 'utf8'),
        pluginDirs: [resolve('plugins')],
      });
    },
    (x) => ({ h, browser, base } = x),
  );

  const open = async (lang: 'zh' | 'en', email: string): Promise<Page> => {
    const ctx = await browser.newContext({ ...CHINESE_VISITOR, viewport: { width: 1280, height: 900 } });
    await ctx.addInitScript((l) => localStorage.setItem('tollgate.lang', l), lang);
    const page = await ctx.newPage();
    watchProblems(page, problems);
    await page.goto(`${base}/console/login`);
    await page.fill('input[name=email]', email);
    await page.fill('input[name=password]', 'password123');
    await page.click('[data-testid=auth-submit]');
    await page.waitForSelector('[data-page="dashboard"]');
    return page;
  };

  const callKuaid = async (page: Page, secret: string): Promise<void> => {
    await page.goto(`${base}/console/debugger?op=kuaid`);
    await page.waitForSelector('[data-testid=dbg-send]');
    await page.selectOption('[data-testid=dbg-key]', 'paste');
    await page.fill('[data-testid=dbg-secret]', secret);
    await page.fill('#p-no', 'YT8962646785389');
    await page.click('[data-testid=dbg-send]');
    await page.waitForSelector('[data-testid=dbg-error]');
  };

  t.test(
    'an unconfigured operation, in Chinese then English: marked, explained, raw body on demand, not charged',
    async (t) => {
      const email = `errors-${Date.now()}@example.com`;
      const user = await createUser(h.services.store.db, email, 'password123', 'user', await testPasswordHash());
      await postEntry(h.services.store.db, {
        userId: user.id,
        amount: 1_000_000,
        kind: 'grant',
        ref: `e2e-grant:${user.id}`,
      });
      const { secret } = await createApiKey(h.services.store.db, user.id, 'e2e', {});

      const zh = await open('zh', email);
      await zh.goto(`${base}/console/docs`);
      await zh.waitForSelector('[data-op=kuaid]');
      t.match(
        await zh.textContent('[data-op=kuaid]'),
        /快递查询.*未开通/s,
        'docs: the Chinese name and the unavailable badge',
      );
      t.match(await zh.textContent('[data-op=phone]'), /手机号归属地/);
      await callKuaid(zh, secret);
      t.match(await zh.textContent('.op-info'), /尚未开通/, 'the debugger warns before the call');
      t.equal(await zh.textContent('[data-testid=dbg-status]'), '503');
      t.equal(await zh.textContent('[data-testid=dbg-error-message]'), '此接口暂未开通，暂时无法使用。本次未扣费。');
      t.equal(await zh.textContent('[data-testid=dbg-error-hint]'), '请选用其他接口，或联系服务方开通此接口。');
      t.notOk(await zh.isVisible('[data-testid=dbg-body]'), 'the raw body is folded away');
      await zh.screenshot({ path: `${SHOTS}/debugger-error-zh.png`, fullPage: true });
      await zh.click('[data-testid=dbg-raw] summary');
      t.ok(await zh.isVisible('[data-testid=dbg-body]'), 'one click shows it');
      const raw = JSON.parse((await zh.textContent('[data-testid=dbg-body]')) ?? '{}') as {
        error: { code: string };
        deducted: number;
      };
      t.equal(raw.error.code, 'OPERATION_UNAVAILABLE');
      t.equal(raw.deducted, 0);
      t.notMatch(await zh.content(), /KUAIDI100|KDNIAO/, 'no setting names on a customer page');

      const en = await open('en', email);
      await callKuaid(en, secret);
      t.equal(
        await en.textContent('[data-testid=dbg-error-message]'),
        'This operation is not available on this server yet. Nothing was charged.',
      );
      t.equal(
        await en.textContent('[data-testid=dbg-error-hint]'),
        "Use another operation, or ask the service's operator to enable this one.",
      );
      await en.screenshot({ path: `${SHOTS}/debugger-error-en.png`, fullPage: true });
      // A plain input error is explained too, with the catalogue's advice.
      await en.selectOption('[data-testid=dbg-op]', 'phone');
      await en.fill('#p-phone', '12');
      await en.click('[data-testid=dbg-send]');
      await en.waitForFunction(
        () =>
          (
            globalThis as unknown as { document: { querySelector(s: string): { textContent: string } | null } }
          ).document.querySelector('[data-testid=dbg-status]')?.textContent === '400',
      );
      t.match(await en.textContent('[data-testid=dbg-error-hint]'), /Check the parameter names/);

      t.same(await h.balance(user.id), { balance: 1_000_000, held: 0 }, 'nothing was charged');
      t.same(
        (await h.ledger(user.id)).map((r) => r.kind),
        ['grant'],
      );
      await zh.context().close();
      await en.context().close();
    },
  );

  t.test('the admin overview says which settings would make kuaid available', async (t) => {
    const email = `errors-admin-${Date.now()}@example.com`;
    await createUser(h.services.store.db, email, 'password123', 'admin', await testPasswordHash());
    const page = await open('zh', email);
    await page.goto(`${base}/console/admin`);
    await page.waitForSelector('[data-testid=admin-availability]');
    const text = (await page.textContent('[data-testid=admin-availability]')) ?? '';
    t.match(text, /kuaid.*未配置.*KUAIDI100_CUSTOMER.*KUAIDI100_KEY.*或.*KDNIAO_BUSINESS_ID.*KDNIAO_API_KEY/s);
    t.match(text, /phone.*可用/s);
    await page.screenshot({ path: `${SHOTS}/admin-availability-zh.png`, fullPage: true });
    await page.context().close();
  });

  t.test('no page errors or CSP refusals', async (t) => {
    t.same(problems, []);
  });
}
