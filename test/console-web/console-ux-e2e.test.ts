// What a hand walk through the console in Debian's Chromium found, in zh and en, against the shipped operations.yaml
// and plugins: on a phone the top bar shows a four-digit balance whole (the brand keeps its logo only); the
// debugger's hints are wholly in the page's language (no "message" field name, no "minLength" keyword inside
// Chinese); a key left unnamed is named in the page's language; the low-balance alert says "off" until a line is
// set; on a phone the docs' tables read as one card per row, descriptions on screen; the ledger names the sign-up
// credit, a package and an admin's grant in the page's language (never the admin's note); on a phone, admin tables
// keep short cells on one line (Chinese broke "手机号归属地" into one character per line); the operator's webhook form
// offers order.pending and upstream.disabled; the audit log and the mail outbox say "user" and "outbox" in the
// page's language. Screenshots: test/artifacts/console/ux/.

import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import t, { type Test } from 'tap';
import { createApiKey } from '../../core/accounts/api-keys.js';
import { createUser } from '../../core/accounts/users.js';
import { postEntry } from '../../core/billing/ledger.js';
import { en } from '../../web/src/i18n/en.js';
import { zh } from '../../web/src/i18n/zh.js';
import { consoleInBrowser, haveChromium, SHOTS, watchProblems } from '../helpers/browser.js';
import { createShippedApp, type TestApp, testPasswordHash } from '../helpers/create-test-app.js';
import { cellsOffScreen } from './page-geometry.js';

declare const localStorage: { setItem(key: string, value: string): void };
declare const document: {
  querySelector(s: string): { textContent: string | null } | null;
};

const DICT = { zh, en };
const DIR = `${SHOTS}/ux`;
const PASSWORD = 'password123';

if (haveChromium(t, 'console ux e2e')) {
  t.setTimeout(300_000);
  let h: TestApp;
  let browser: Browser;
  let base: string;
  const problems: string[] = [];

  consoleInBrowser(
    t,
    () => createShippedApp(1_000_000),
    (x) => ({ h, browser, base } = x),
  );
  t.before(() => mkdirSync(DIR, { recursive: true }));

  const open = async (
    lang: 'zh' | 'en',
    email: string,
    viewport: { width: number; height: number },
    first = '/console/',
  ): Promise<Page> => {
    const ctx = await browser.newContext({ locale: lang === 'zh' ? 'zh-CN' : 'en-US', viewport });
    await ctx.addInitScript((l) => localStorage.setItem('tollgate.lang', l), lang);
    const page = await ctx.newPage();
    watchProblems(page, problems);
    await page.goto(`${base}/console/login`);
    await page.fill('input[name=email]', email);
    await page.fill('input[name=password]', PASSWORD);
    await page.click('[data-testid=auth-submit]');
    await page.waitForSelector('[data-page]');
    if (first !== '/console/') await page.goto(`${base}${first}`);
    return page;
  };
  const PHONE = { width: 390, height: 844 };
  const DESKTOP = { width: 1280, height: 800 };

  /** A customer who signed up (the trial credit is their first ledger row), with `grant` micro-TOKEN more. */
  const customer = async (t: Test, tag: string, grant = 0): Promise<{ email: string; id: number }> => {
    const email = `ux-${tag}-${Date.now()}@example.com`;
    const reg = await h.client.post('/console/api/register', { email, password: PASSWORD });
    t.equal(reg.status, 201, `${tag}: registered`);
    const id = reg.body.user.id as number;
    if (grant) await postEntry(h.services.store.db, { userId: id, amount: grant, kind: 'grant', ref: `ux:${id}` });
    return { email, id };
  };

  for (const lang of ['zh', 'en'] as const) {
    t.test(`${lang}: a phone's top bar shows a four-digit balance whole, and log-out stays on screen`, async (t) => {
      // 1 TOKEN of trial credit + 1,079.995 = 1,080.995 TOKEN.
      const { email } = await customer(t, `pill-${lang}`, 1_079_995_000);
      const page = await open(lang, email, PHONE);
      const pill = '[data-testid=balance-pill]';
      await page.waitForFunction((sel) => /1,080\.995/.test(document.querySelector(sel)?.textContent ?? ''), pill);
      t.equal(await page.textContent(pill), '1,080.995 TOKEN');
      const cut = await page.$eval(pill, (el) => el.scrollWidth - el.clientWidth);
      t.equal(cut, 0, 'nothing of the balance is hidden behind an ellipsis');
      const logout = await page.$eval('[data-testid=logout]', (el) => el.getBoundingClientRect().right);
      t.ok(logout <= PHONE.width, `log-out ends at ${logout}, inside ${PHONE.width}`);
      await page.screenshot({ path: `${DIR}/topbar-${lang}-phone.png`, clip: { x: 0, y: 0, width: 390, height: 110 } });
      await page.context().close();
    });
  }

  for (const lang of ['zh', 'en'] as const) {
    t.test(`${lang}: the debugger's hints are wholly in the page's language`, async (t) => {
      const d = DICT[lang];
      const { email, id } = await customer(t, `dbg-${lang}`);
      const { secret } = await createApiKey(h.services.store.db, id, 'ux', {});
      const page = await open(lang, email, DESKTOP, '/console/debugger?op=kuaid');
      await page.waitForSelector('#p-no');
      // The tracking number's hint: its length in words, no schema keyword.
      const noHint = (await page.textContent('div.field:has(#p-no) > .hint')) ?? '';
      t.notMatch(noHint, /minLength|maxLength/);
      t.match(noHint, `${d['schema.minLength'].replace('{n}', '6')} · ${d['schema.maxLength'].replace('{n}', '40')}`);

      await page.selectOption('[data-testid=dbg-op]', 'phone');
      const phoneHint = (await page.textContent('div.field:has(#p-phone) > .hint')) ?? '';
      t.notMatch(phoneHint, /minLength|maxLength|at least 1 |至少 1 /, 'a minimum of one character goes unsaid');
      await page.selectOption('[data-testid=dbg-key]', 'paste');
      await page.fill('[data-testid=dbg-secret]', secret);
      await page.fill('#p-phone', '12');
      await page.click('[data-testid=dbg-send]');
      await page.waitForFunction(() => document.querySelector('[data-testid=dbg-status]')?.textContent === '400');
      const hint = await page.textContent('[data-testid=dbg-error-hint]');
      t.equal(hint, d['consoleHint.INVALID_INPUT']);
      if (lang === 'zh') t.notMatch(hint ?? '', /[A-Za-z]/, 'no English word inside the Chinese hint');
      await page.screenshot({ path: `${DIR}/debugger-invalid-${lang}.png`, fullPage: true });
      await page.context().close();
    });
  }

  for (const lang of ['zh', 'en'] as const) {
    t.test(`${lang}: a key created without a name is named in the page's language`, async (t) => {
      const d = DICT[lang];
      const { email, id } = await customer(t, `key-${lang}`);
      const page = await open(lang, email, DESKTOP, '/console/keys');
      await page.click('[data-testid=create-key]');
      await page.waitForSelector('[data-testid=new-secret]');
      const keys = await h.services.store.db.selectFrom('api_keys').select('name').where('user_id', '=', id).execute();
      t.same(
        keys.map((k) => k.name),
        [lang === 'zh' ? '默认' : 'default'],
      );
      t.match(await page.textContent('.notice-ok strong'), d['keys.createdTitle'].replace('{name}', keys[0]?.name));
      await page.context().close();
    });
  }

  for (const lang of ['zh', 'en'] as const) {
    t.test(`${lang}: the low-balance alert says it is off until a line is set`, async (t) => {
      const d = DICT[lang];
      const { email } = await customer(t, `alert-${lang}`);
      const page = await open(lang, email, DESKTOP, '/console/notify');
      const state = 'p.small:has(.badge) >> nth=0';
      await page.waitForSelector(state);
      t.equal((await page.textContent(state))?.trim(), d['notify.off']);
      await page.fill('input[name=balance_threshold]', '0.5');
      await page.click(`button[type=submit]:text-is("${d['notify.save']}")`);
      await page.waitForFunction(
        (want) => document.querySelector('.notice-ok')?.textContent?.includes(want),
        d['notify.saved'],
      );
      t.equal((await page.textContent(state))?.trim(), d['notify.armed']);
      await page.context().close();
    });
  }

  t.test("zh, phone: the docs' tables show every description on screen", async (t) => {
    const { email } = await customer(t, 'docs-zh');
    const page = await open('zh', email, PHONE, '/console/docs/phone');
    await page.waitForSelector('section.card tbody');
    // Each table found by its card's title, as a reader finds it.
    for (const title of [zh['docs.params'], zh['docs.responseFields'], zh['docs.errors']]) {
      // The last cell of every row is the description (the errors' table: what to do).
      const cells = `section.card:has(> h2:text-is("${title}")) tbody tr td:last-child`;
      const [rows, off] = await cellsOffScreen(page, cells);
      t.ok(rows > 0, `${title}: has rows`);
      t.same(off, [], `${title}: every description inside the ${PHONE.width}px screen`);
    }
    await page.screenshot({ path: `${DIR}/docs-phone-zh-phone.png`, fullPage: true });
    await page.context().close();
  });

  t.test('zh, phone: the usage call log shows every cell on screen', async (t) => {
    const u = await h.user('10', { email: `ux-usage-zh-${Date.now()}@example.com` });
    for (const phone of ['13800138000', '13912345678', '123'])
      await h.client.get(`/api/phone?phone=${phone}`, { 'X-API-Key': u.key });
    const page = await open('zh', u.email, PHONE, '/console/usage');
    await page.waitForSelector('[data-testid=calls-table] tbody tr');
    const [cells, off] = await cellsOffScreen(page, '[data-testid=calls-table] tbody td');
    t.equal(cells, 3 * 8, 'three calls, eight cells each');
    t.same(off, [], `every cell inside the ${PHONE.width}px screen`);
    await page.screenshot({ path: `${DIR}/usage-phone-zh.png`, fullPage: true });
    await page.context().close();
  });

  for (const lang of ['zh', 'en'] as const) {
    t.test(
      `${lang}: the ledger names the sign-up credit, a package and an admin's grant in the page's language`,
      async (t) => {
        const d = DICT[lang];
        const { email, id } = await customer(t, `ledger-${lang}`);
        // A package as the server books it: its English name as the note.
        await postEntry(h.services.store.db, {
          userId: id,
          amount: 105_000_000,
          kind: 'package',
          ref: `order:ux-${id}`,
          note: '100 TOKEN (+5 bonus)',
        });
        // An admin's grant: its note is the operator's ("(by admin N)"); the page names the row in its language.
        await postEntry(h.services.store.db, {
          userId: id,
          amount: 2_000_000,
          kind: 'grant',
          ref: `grant:ux-${id}`,
          note: 'goodwill (by admin 1)',
        });
        const page = await open(lang, email, DESKTOP, '/console/billing');
        await page.waitForSelector('[data-testid=ledger-table]');
        const details = await page.$$eval('[data-testid=ledger-table] tbody tr td:last-child', (tds) =>
          tds.map((td) => td.textContent),
        );
        t.same(details, [
          lang === 'zh' ? '客服赠送' : 'Credit from support',
          lang === 'zh' ? '100 TOKEN（加赠 5）' : '100 TOKEN (+5 bonus)',
          d['ledger.note.trial'],
        ]);
        await page.screenshot({ path: `${DIR}/ledger-${lang}.png`, fullPage: true });
        await page.context().close();
      },
    );
  }

  t.test('admin, zh, phone: short cells on one line; operator events; audit and outbox in Chinese', async (t) => {
    const boss = `ux-admin-${Date.now()}@example.com`;
    await createUser(h.services.store.db, boss, PASSWORD, 'admin', await testPasswordHash());
    // A customer's key (an audit row by a user) and a manual order (a mail to the admins, kept in the outbox).
    const buyer = await h.client.post('/console/api/register', {
      email: `ux-buyer-${Date.now()}@example.com`,
      password: PASSWORD,
    });
    const auth = { authorization: `Bearer ${buyer.body.token}` };
    t.equal((await h.client.post('/console/api/keys', { name: 'k' }, auth)).status, 201);
    t.equal((await h.client.post('/console/api/orders', { kind: 'package', id: 't10' }, auth)).status, 201);

    const page = await open('zh', boss, PHONE, '/console/admin');
    await page.waitForSelector('[data-testid=admin-availability]');
    // How many lines each operation's name takes: a range's rects are one per line box.
    const lines = await page.$$eval('[data-testid=admin-availability] tbody tr td:nth-child(2)', (tds) =>
      tds.map((td) => {
        const range = td.ownerDocument.createRange();
        range.selectNodeContents(td);
        return [td.textContent, range.getClientRects().length] as const;
      }),
    );
    t.ok(lines.length >= 5, 'every operation has a row');
    t.same(
      lines.filter(([, n]) => n !== 1),
      [],
      'no name is broken over lines',
    );
    const outside = await page.$$eval(
      '[data-testid=admin-availability] tbody tr td:last-child',
      (tds, width) => tds.filter((td) => td.getBoundingClientRect().right > width).length,
      PHONE.width,
    );
    t.equal(outside, 0, 'what enables an operation is inside the screen');
    await page
      .locator('[data-testid=admin-availability]')
      .screenshot({ path: `${DIR}/admin-availability-zh-phone.png` });

    await page.goto(`${base}/console/admin/webhooks`);
    await page.waitForSelector('input[name=events]');
    t.same(
      await page.$$eval('input[name=events]', (els) => els.map((e) => (e as unknown as { value: string }).value)),
      ['balance.low', 'order.paid', 'plan.expiring', 'key.expiring', 'order.pending', 'upstream.disabled'],
    );

    await page.goto(`${base}/console/admin/audit`);
    await page.waitForSelector('[data-testid=audit-table]');
    const actors = await page.$$eval('[data-testid=audit-table] tbody tr td:nth-child(2)', (tds) =>
      tds.map((td) => td.textContent ?? ''),
    );
    t.ok(actors.length > 0);
    t.same(
      actors.filter((a) => !/^(用户|管理员|系统)( |$)/.test(a)),
      [],
      'every actor starts with its role in Chinese',
    );

    await page.goto(`${base}/console/admin/mail`);
    await page.waitForSelector('[data-testid=mail-outbox]');
    const via = await page.$$eval('[data-testid=mail-outbox] tbody tr td:nth-child(4)', (tds) =>
      tds.map((td) => td.textContent),
    );
    t.ok(via.length > 0, 'the order mail is in the outbox');
    t.same([...new Set(via)], [zh['mail.via.outbox']]);
    await page.context().close();
  });

  t.test('no page errors or CSP refusals', async (t) => {
    t.same(problems, []);
  });
}
