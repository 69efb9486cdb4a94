// The operator's canary view and the customer's status dots, in Debian's Chromium, in Chinese and English on a
// desktop (1280x800) and a phone (390x844): real canary runs (nock for two configured upstreams; the first fails
// twice and is down) feed the admin overview's card (each subject's state, since, last success, last failure's
// class, and the recent results), the configured upstreams card (alpha demoted by its canary, beta in rotation),
// the margin card's CSV download, and a dot per operation in the docs and the debugger, read from /status.json.
import { mkdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import nock from 'nock';
import type { Browser, Page } from 'playwright-core';
import t from 'tap';
import { createUser } from '../../core/accounts/users.js';
import { createCanaryRunner } from '../../core/health/canary-runner.js';
import { en } from '../../web/src/i18n/en.js';
import { zh } from '../../web/src/i18n/zh.js';
import { ITEM_YAML, ok } from '../health/upstream-support.js';
import { consoleInBrowser, haveChromium, SHOTS, watchProblems } from '../helpers/browser.js';
import { createTestApp, type TestApp, testPasswordHash } from '../helpers/create-test-app.js';
import { pageOverflow } from './page-geometry.js';

const DICT = { zh, en };
const LOCALE = { zh: 'zh-CN', en: 'en-US' } as const;
const DEVICES = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;
const DIR = `${SHOTS}/canaries`;

if (haveChromium(t, 'canary console view')) {
  t.setTimeout(300_000);
  let h: TestApp;
  let browser: Browser;
  let base: string;
  const problems: string[] = [];
  const email = `canary-admin-${Date.now()}@example.com`;

  consoleInBrowser(
    t,
    () => createTestApp({ operationsYaml: ITEM_YAML, pluginDirs: [resolve('plugins')] }),
    (x) => ({ h, browser, base } = x),
  );
  t.before(async () => {
    mkdirSync(DIR, { recursive: true });
    await createUser(h.services.store.db, email, 'password123', 'admin', await testPasswordHash());
    // Real canary runs: all pass, then alpha fails twice (down) while the operation itself stays ok through beta.
    nock.disableNetConnect();
    nock.enableNetConnect('127.0.0.1');
    nock('https://alpha.example.com').get('/v1/items/probe').times(2).reply(200, ok('probe'));
    nock('https://beta.example.com').get('/v1/items/probe').reply(200, ok('probe'));
    await createCanaryRunner(h.services).runNow('item');
    nock('https://alpha.example.com').get('/v1/items/probe').times(2).reply(500, 'oops');
    await createCanaryRunner(h.services).runNow('item', 'upstream:alpha');
    await createCanaryRunner(h.services).runNow('item', 'upstream:alpha');
    nock.cleanAll();
  });
  t.teardown(() => nock.enableNetConnect());

  for (const lang of ['zh', 'en'] as const)
    for (const device of ['desktop', 'phone'] as const)
      t.test(`${lang} ${device}`, async (t) => {
        const d = DICT[lang];
        const ctx = await browser.newContext({ viewport: DEVICES[device], locale: LOCALE[lang] });
        const page = await ctx.newPage();
        watchProblems(page, problems);
        const shot = async (p: Page, step: string): Promise<void> => {
          t.ok((await pageOverflow(p)) <= 0, `${step}: nothing wider than the screen`);
          await p.screenshot({ path: `${DIR}/${step}-${lang}-${device}.png`, fullPage: true });
        };
        await page.goto(`${base}/console/login`);
        await page.fill('input[name=email]', email);
        await page.fill('input[name=password]', 'password123');
        await page.click('[data-testid=auth-submit]');
        await page.waitForSelector('[data-page="dashboard"]');

        await page.goto(`${base}/console/admin`);
        const status = await page.waitForSelector('[data-testid=canary-status-table]');
        t.ok(await page.isVisible(`text=${d['admin.canaries']}`));
        const rows = await status.$$eval('tbody tr', (trs) =>
          trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent?.trim() ?? '')),
        );
        t.same(
          rows.map((r) => [r[0], r[1], r[2]]),
          [
            ['item', '—', d['status.ok']],
            ['item', 'upstream:alpha', d['status.down']],
            ['item', 'upstream:beta', d['status.ok']],
          ],
          'one row per subject, the failing upstream down',
        );
        t.equal(rows[1][5], 'upstream_error', 'the last failure class of the down upstream');
        t.not(rows[1][4], '—', 'it succeeded before');
        const history = await page.textContent('[data-testid=canary-history-table]');
        t.match(history, /upstream:alpha/);
        t.match(history, new RegExp(d['admin.failed']));
        t.match(history, /UPSTREAM_FAILED/, 'the detail the public page leaves out');
        t.equal(
          await page.$$eval('[data-testid=canary-history-table] tbody tr', (trs) => trs.length),
          5,
          'every stored result, newest first',
        );
        const outside = await page.$$eval(
          '[data-testid=canary-history-table] tbody tr td:last-child',
          (tds, width) => tds.filter((td) => td.getBoundingClientRect().right > width).length,
          DEVICES[device].width,
        );
        t.equal(outside, 0, "every result's detail inside the screen, a phone's too");
        await page.locator('[data-testid=canary-status-table]').scrollIntoViewIfNeeded();
        await shot(page, 'admin');

        // Each configured upstream: alpha out of rotation by its canary (until when), beta in rotation.
        const upstreams = await page.$$eval('[data-testid=admin-upstreams] tbody tr', (trs) =>
          trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent?.trim() ?? '')),
        );
        const demoted = d['admin.upstreamDemoted'].split('{until}')[0];
        t.same(
          upstreams.map((r) => [r[0], r[1], r[2].startsWith(demoted) ? demoted : r[2], r[3], r[5]]),
          [
            ['item', 'alpha', demoted, '—', '1 / 1'],
            ['item', 'beta', d['admin.upstreamOk'], '—', '2 / 1'],
          ],
          'state, last error and order of each upstream',
        );
        t.match(upstreams[0][4], /^0\.001/, 'cost per call');
        t.ok(await page.isVisible(`text=${d['admin.upstreamsTitle']}`));
        await page.locator('[data-testid=admin-upstreams]').scrollIntoViewIfNeeded();
        await shot(page, 'admin-upstreams');

        // The margin card's CSV: the days chosen, the canary cost apart.
        const [file] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=margin-csv]')]);
        t.equal(file.suggestedFilename(), 'margin-30d.csv');
        t.match(
          readFileSync((await file.path())!, 'utf8'),
          /^day,operation,upstream,calls,revenue,cost,canary_cost,margin\n/,
        );

        await page.goto(`${base}/console/docs`);
        const dot = await page.waitForSelector('[data-testid=status-dot-item]');
        t.equal(await dot.getAttribute('class'), 'status-dot status-ok');
        t.equal(await dot.getAttribute('title'), d['status.ok']);
        await shot(page, 'docs');
        await page.goto(`${base}/console/docs/item`);
        t.equal(
          (await (await page.waitForSelector('[data-testid=status-line]')).textContent())?.trim(),
          d['status.ok'],
        );
        await page.goto(`${base}/console/debugger?op=item`);
        t.equal(
          (await (await page.waitForSelector('[data-testid=status-line]')).textContent())?.trim(),
          d['status.ok'],
        );
        await shot(page, 'debugger');
        await ctx.close();
        t.same(problems, [], 'no page errors or CSP refusals');
      });
}
