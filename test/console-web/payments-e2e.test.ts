// A new customer pays without any admin, in Debian's Chromium against a local fake EPay gateway: sign up (trial
// credit arrives), pick a package, choose EPay · Alipay, follow the pay link to the gateway's cashier page, pay
// there; the gateway notifies Tollgate server to server (signed, through a "reverse proxy" that maps the public
// base URL to the test port) and sends the browser back; the pay page shows "paid" and the balance rose. A
// second order stays open on its pay page while it is paid elsewhere (a phone scanning the QR): the status
// flips to paid by itself. Then the order history, cancel, and pay again.

import type { Browser, Page } from 'playwright-core';
import t from 'tap';
import { createUser } from '../../core/accounts/users.js';
import { epaySign } from '../../core/billing/payments/epay.js';
import { type FakeServer, fakeServer, paymentsApp } from '../billing/payments/support.js';
import { CHINESE_VISITOR, consoleInBrowser, haveChromium, SHOTS, watchProblems } from '../helpers/browser.js';
import type { TestApp } from '../helpers/create-test-app.js';
import { testPasswordHash } from '../helpers/create-test-app.js';

// Browser globals used inside page.evaluate callbacks: they run in Chromium; the tests are typed without lib DOM.
declare const sessionStorage: { getItem(key: string): string | null };

const KEY = 'e2e-epay-key';
const PUBLIC = 'http://tollgate.test';

if (haveChromium(t, 'payments e2e')) {
  t.setTimeout(240_000);
  let h: TestApp;
  let gw: FakeServer;
  let browser: Browser;
  let base: string;
  const problems: string[] = [];
  /** Orders the fake gateway has seen, by out_trade_no: the fields the browser brought. */
  const seen = new Map<string, Record<string, string>>();

  /** The gateway pays an order: a signed GET notify to Tollgate (mapped from the public URL to the test port). */
  const gatewayPays = async (outTradeNo: string): Promise<string> => {
    const o = seen.get(outTradeNo)!;
    const f: Record<string, string> = {
      pid: '1001',
      trade_no: `GW${outTradeNo}`,
      out_trade_no: outTradeNo,
      type: o.type,
      name: o.name,
      money: o.money,
      trade_status: 'TRADE_SUCCESS',
    };
    const url = `${o.notify_url.replace(PUBLIC, base)}?${new URLSearchParams({ ...f, sign: epaySign(f, KEY), sign_type: 'MD5' }).toString()}`;
    return (await fetch(url)).text();
  };

  t.before(async () => {
    gw = await fakeServer();
    gw.handler = (req, res) => {
      const url = new URL(req.path, gw.url);
      if (url.pathname === '/submit.php') {
        const fields = Object.fromEntries(url.searchParams);
        if (fields.sign !== epaySign(fields, KEY)) {
          res.writeHead(400, { 'content-type': 'text/plain' });
          return res.end('签名错误');
        }
        seen.set(fields.out_trade_no, fields);
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        return res.end(
          `<!doctype html><title>收银台</title><h1>收银台 ¥${fields.money}</h1><form method="post" action="/pay?o=${fields.out_trade_no}"><button id="gw-pay">确认支付</button></form>`,
        );
      }
      if (url.pathname === '/pay') {
        const no = url.searchParams.get('o') ?? '';
        void gatewayPays(no).then((answer) => {
          // Like the real gateway: only after "success" is the buyer sent back.
          res.writeHead(302, {
            location: answer === 'success' ? seen.get(no)!.return_url.replace(PUBLIC, base) : '/failed',
          });
          res.end();
        });
        return;
      }
      res.writeHead(404);
      res.end();
    };
  });
  consoleInBrowser(
    t,
    () =>
      paymentsApp(
        [
          { id: 'epay', kind: 'epay', pid: '1001', key: KEY, gateway: gw.url, methods: ['alipay', 'wxpay'] },
          { id: 'manual', kind: 'manual' },
        ],
        { publicBaseUrl: PUBLIC, trialCreditMicro: 1_000_000 },
      ),
    (x) => ({ h, browser, base } = x),
  );
  t.teardown(async () => {
    await gw?.close();
  });

  const shot = (page: Page, name: string): Promise<Buffer> =>
    page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });
  const available = async (page: Page): Promise<number> => {
    const me = await page.evaluate(async () => {
      const token = sessionStorage.getItem('tollgate.token') ?? '';
      return (await fetch('/console/api/me', { headers: { authorization: `Bearer ${token}` } })).json();
    });
    return (me as { available: number }).available;
  };

  t.test(
    'sign up, trial credit, buy a package through the gateway, see the balance rise; live status; cancel and pay again',
    async (t) => {
      const ctx = await browser.newContext({ ...CHINESE_VISITOR, viewport: { width: 1280, height: 900 } });
      const page = await ctx.newPage();
      watchProblems(page, problems);
      await page.goto(`${base}/console/register`);
      await page.fill('input[name=email]', `payer-${Date.now()}@example.com`);
      await page.fill('input[name=password]', 'secret123pass');
      await page.click('[data-testid=auth-submit]');
      await page.waitForSelector('[data-page="dashboard"]');
      t.equal(await available(page), 1, 'the trial credit arrived with the account');

      await page.click('nav.sidenav a[data-nav="billing"]');
      await page.waitForSelector('[data-page="billing"]');
      await page.click('[data-testid=order-package-p10]');
      await page.waitForSelector('[data-testid=pay-with-epay-alipay]');
      t.ok(await page.isVisible('[data-testid=pay-with-manual]'), 'every configured method is offered');
      await shot(page, 'pay-choose-zh');
      await page.click('[data-testid=pay-with-epay-alipay]');
      await page.waitForSelector('[data-testid=pay-redirect]');
      t.match(page.url(), /\/console\/billing\/orders\/\d+$/);
      t.equal(await page.getAttribute('[data-testid=pay-status]', 'data-status'), 'pending');
      await shot(page, 'pay-pending-zh');

      await page.click('[data-testid=pay-redirect]');
      await page.waitForSelector('#gw-pay');
      t.match(await page.textContent('h1'), /收银台 ¥10\.00/);
      await page.click('#gw-pay');
      await page.waitForSelector('[data-testid=pay-paid]');
      t.equal(await page.getAttribute('[data-testid=pay-status]', 'data-status'), 'paid');
      t.equal(await available(page), 11, 'balance rose by the package, without any admin');
      await shot(page, 'pay-paid-zh');

      // A second order, paid elsewhere while its pay page stays open: the status flips by itself.
      await page.click('text=← 返回账户与充值');
      await page.waitForSelector('[data-page="billing"]');
      await page.click('[data-testid=order-package-p10]');
      await page.click('[data-testid=pay-with-epay-wxpay]');
      await page.waitForSelector('[data-testid=pay-redirect]');
      const id = Number(page.url().split('/').pop());
      // The browser never went to the gateway for this one: register the order with it as a phone would.
      const link = (await page.getAttribute('[data-testid=pay-redirect]', 'href')) ?? '';
      await fetch(link);
      t.equal(await gatewayPays(`TG${String(id).padStart(10, '0')}`), 'success');
      await page.waitForSelector('[data-testid=pay-paid]', { timeout: 15_000 });
      t.equal(await available(page), 21);

      // A third order cancelled from the pay page, then paid again from the order history.
      await page.click('text=← 返回账户与充值');
      await page.click('[data-testid=order-package-p10]');
      await page.click('[data-testid=pay-with-manual]');
      await page.waitForSelector('[data-testid=pay-instructions]');
      t.match(await page.textContent('[data-testid=pay-instructions]'), /请按与服务方约定的方式付款，并注明订单号/);
      page.once('dialog', (d) => void d.accept());
      await page.click('[data-testid=pay-cancel]');
      await page.waitForSelector('[data-testid=pay-again]');
      const cancelled = Number(page.url().split('/').pop());
      await page.click('text=← 返回账户与充值');
      await page.waitForSelector(`[data-testid=pay-again-${cancelled}]`);
      await shot(page, 'orders-history-zh');
      await page.click(`[data-testid=pay-again-${cancelled}]`);
      await page.waitForSelector('[data-testid=pay-instructions]');
      t.not(Number(page.url().split('/').pop()), cancelled, 'pay again makes a new order');

      await page.click('[data-testid=lang-switch]');
      await page.waitForSelector('text=Pay the operator as agreed');
      await shot(page, 'pay-manual-en');
      const pendingId = Number(page.url().split('/').pop());
      await ctx.close();

      // The admin sees the pending order at a glance, finds the whole story in the payment log, and confirms it.
      const adminEmail = `pay-admin-${Date.now()}@example.com`;
      await createUser(h.services.store.db, adminEmail, 'password123', 'admin', await testPasswordHash());
      const actx = await browser.newContext({ ...CHINESE_VISITOR, viewport: { width: 1280, height: 900 } });
      const ap = await actx.newPage();
      watchProblems(ap, problems, { csp: false });
      await ap.goto(`${base}/console/login`);
      await ap.fill('input[name=email]', adminEmail);
      await ap.fill('input[name=password]', 'password123');
      await ap.click('[data-testid=auth-submit]');
      await ap.waitForSelector('[data-page="dashboard"]');
      await ap.goto(`${base}/console/admin`);
      t.equal(
        (await (await ap.waitForSelector('[data-testid=nav-pending-badge]')).textContent())?.trim(),
        '1',
        'pending badge on the admin navigation',
      );
      await ap.click('.subnav a[href="/console/admin/orders"]');
      await ap.waitForSelector(`[data-testid=confirm-order-${pendingId}]`);
      t.ok(await ap.isVisible('[data-testid=payment-log-table]'));
      t.match(
        await ap.textContent('[data-testid=payment-log-table]'),
        /credited/,
        'the paid notifications are in the payment log',
      );
      await shot(ap, 'admin-payments-zh');
      ap.once('dialog', (d) => void d.accept());
      await ap.click(`[data-testid=confirm-order-${pendingId}]`);
      await ap.waitForSelector(`[data-testid=confirm-order-${pendingId}]`, { state: 'detached' });
      t.equal(
        (
          await h.services.store.db
            .selectFrom('orders')
            .select('status')
            .where('id', '=', pendingId)
            .executeTakeFirstOrThrow()
        ).status,
        'paid',
      );
      t.same(problems, [], 'no page errors or CSP refusals');
      await actx.close();
    },
  );
}
