// The public status page and its JSON after real canary runs (Xiaohongshu down, Bilibili ok, phone ok): per
// operation and platform state, class, bars from stored results, the front page's dot, the admin state and history,
// `tollgate canary run`, and the page in Chromium in Chinese and English on a desktop and a phone screen.

import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import nock from 'nock';
import t from 'tap';
import { UsageError } from '../../core/cli/args.js';
import { canaryRun } from '../../core/cli/canary-run.js';
import { parseCommandLine } from '../../core/cli/specs.js';
import { createCanaryRunner } from '../../core/health/canary-runner.js';
import { admin } from '../console/support.js';
import { CHROMIUM, haveChromium, launchBrowser, SHOTS, watchProblems } from '../helpers/browser.js';
import type { TestApp } from '../helpers/create-test-app.js';
import { biliGood, canaryApp, XHS_VIDEO, xhsNote } from './support.js';

// Browser globals used inside page.evaluate callbacks: they run in Chromium; the tests are typed without lib DOM.
declare const document: { documentElement: { scrollWidth: number } };
declare const window: { innerWidth: number };
declare function getComputedStyle(e: unknown): { backgroundColor: string };

nock.disableNetConnect();
let h: TestApp;
const HOUR = 3_600_000;
t.before(async () => {
  h = await canaryApp();
  const runner = createCanaryRunner(h.services);
  xhsNote(200, XHS_VIDEO);
  await runner.runNow('jiexi', 'xiaohongshu');
  xhsNote(461, 'captcha');
  await runner.runNow('jiexi', 'xiaohongshu');
  xhsNote(461, 'captcha');
  await runner.runNow('jiexi', 'xiaohongshu');
  biliGood();
  await runner.runNow('jiexi', 'bilibili');
  await runner.runNow('phone');
  // History for the 7-day bars: a failed hour three days ago, a good one two days ago.
  const now = Date.now();
  await h.services.store.db
    .insertInto('canary_results')
    .values([
      {
        operation: 'phone',
        platform: '',
        source: 'canary',
        ok: 0,
        failure_class: 'timeout',
        field: null,
        detail: 'x',
        duration_ms: 5,
        request_id: null,
        created_at: now - 72 * HOUR,
      },
      {
        operation: 'phone',
        platform: '',
        source: 'live',
        ok: 1,
        failure_class: null,
        field: null,
        detail: 'live',
        duration_ms: null,
        request_id: null,
        created_at: now - 48 * HOUR,
      },
    ])
    .execute();
});
t.afterEach(() => nock.cleanAll());
t.teardown(() => h.close());

const sha = (s: string): string => createHash('sha256').update(s).digest('base64');

t.test('/status.json: per operation and platform, classes, bars', async (t) => {
  const res = await h.client.get('/status.json');
  t.equal(res.status, 200);
  t.equal(res.headers['content-type'], 'application/json; charset=utf-8');
  const r = res.body;
  t.equal(r.state, 'degraded', 'one platform down makes the whole degraded, not down');
  const jiexi = r.operations.find((o: { code: string }) => o.code === 'jiexi');
  t.match(jiexi, {
    state: 'degraded',
    last_class: 'risk_control',
    name: { zh: '短视频去水印解析', en: 'Short-video watermark-free parsing' },
  });
  t.same(
    jiexi.platforms.map((p: { platform: string; state: string }) => `${p.platform}:${p.state}`),
    ['douyin:unknown', 'kuaishou:unknown', 'xiaohongshu:down', 'bilibili:ok'],
  );
  t.match(jiexi.platforms[2], { last_class: 'risk_control', last_field: null });
  t.notOk('last_detail' in jiexi.platforms[2], 'the detail stays in the admin view');
  t.same(
    r.operations.map((o: { code: string }) => o.code),
    ['phone', 'jiexi', 'kuaid_detect', 'douyin'],
    'kuaid is not configured here: not listed',
  );
  const phone = r.operations[0];
  t.equal(phone.state, 'ok');
  t.equal(phone.bars['24h'].length, 24);
  t.equal(phone.bars['7d'].length, 28);
  t.equal(phone.bars['30d'].length, 30);
  t.match(phone.bars['24h'][23], { ok: 1, total: 1, state: 'ok' });
  const sevenDay = phone.bars['7d']
    .filter((b: { total: number }) => b.total > 0)
    .map((b: { state: string }) => b.state);
  t.same(sevenDay, ['down', 'ok', 'ok']);
  t.equal(jiexi.bars['24h'][23].state, 'degraded', 'this hour: successes and failures');
});

t.test('/status in English and Chinese: server-rendered, no script, CSP by hash, windows', async (t) => {
  const en = await h.client.get('/status?lang=en');
  t.equal(en.status, 200);
  t.equal(en.headers['content-language'], 'en');
  const style = /<style>([\s\S]*)<\/style>/.exec(en.text)![1];
  t.match(en.headers['content-security-policy'], `style-src 'sha256-${sha(style)}'`);
  t.notMatch(en.text, /<script/i);
  t.match(en.text, 'data-overall="degraded"');
  t.match(en.text, 'Some operations are degraded');
  t.match(en.text, /data-platform="xiaohongshu" data-state="down">.*Xiaohongshu · Down · bot wall \/ risk control/);
  t.match(en.text, 'aria-current="page">24 hours');
  const week = await h.client.get('/status?lang=en&window=7d');
  t.match(week.text, 'aria-current="page">7 days');
  const zh = await h.client.get('/status', { 'accept-language': 'zh-CN,zh;q=0.9' });
  t.equal(zh.headers['content-language'], 'zh-CN');
  t.match(zh.text, '部分接口异常');
  t.match(zh.text, '小红书 · 故障 · 平台风控 / 验证码');
  t.match(zh.text, '北京时间');
});

t.test('the front page shows the status dot, linking to /status', async (t) => {
  await h.client.get('/status.json');
  const res = await h.client.get('/?lang=en');
  t.match(
    res.text,
    '<a class="status s-degraded" href="/status?lang=en" title="Some operations are degraded" data-status="degraded">',
  );
  const style = /<style>([\s\S]*)<\/style>/.exec(res.text)![1];
  t.match(res.headers['content-security-policy'], `style-src 'sha256-${sha(style)}'`);
});

t.test('Prometheus gauges per operation and platform', async (t) => {
  const text = await h.services.metrics.text();
  t.match(text, '# TYPE tollgate_operation_status gauge');
  t.match(text, 'tollgate_operation_status{operation="jiexi",platform="xiaohongshu"} 2');
  t.match(text, 'tollgate_operation_status{operation="jiexi",platform="bilibili"} 0');
  t.match(text, 'tollgate_operation_status{operation="jiexi",platform=""} 1');
  t.match(text, 'tollgate_operation_status{operation="douyin",platform=""} -1');
  t.match(text, /tollgate_operation_last_success_seconds\{operation="phone",platform=""\} \d{10}/);
});

t.test('admin: state with detail and next probe, history newest first; customers are refused', async (t) => {
  const a = await admin(h);
  const state = await h.client.get('/console/api/admin/canaries', a.headers);
  t.equal(state.status, 200);
  const xhs = state.body.subjects.find((s: { platform: string }) => s.platform === 'xiaohongshu');
  t.match(xhs, { operation: 'jiexi', state: 'down', failures: 2, last_class: 'risk_control', last_detail: /HTTP 461/ });
  t.ok(Date.parse(xhs.next_probe_at) > Date.now());
  t.match(
    state.body.canaries.find((c: { operation: string }) => c.operation === 'jiexi'),
    { interval_s: 1800, failures_to_down: 2 },
  );
  const hist = await h.client.get(
    '/console/api/admin/canaries/history?operation=jiexi&platform=xiaohongshu',
    a.headers,
  );
  t.equal(hist.status, 200);
  t.same(
    hist.body.results.map((r: { ok: boolean; failure_class: string | null }) => `${r.ok}:${r.failure_class}`),
    ['false:risk_control', 'false:risk_control', 'true:null'],
  );
  const bad = await h.client.get('/console/api/admin/canaries/history?hours=0', a.headers);
  t.equal(bad.status, 400);
  const u = await h.user('0');
  const customer = await h.client.get('/console/api/admin/canaries', { 'X-API-Key': u.key });
  t.equal(customer.status, 401);
});

t.test('tollgate canary run: verdict lines and exit codes', async (t) => {
  const lines: string[] = [];
  t.equal(await canaryRun(h.services, parseCommandLine(['canary', 'run', 'phone']), (l) => lines.push(l)), 0);
  t.match(lines, [/^phone +ok +state=ok \d+(\.\d+)? ms req_/]);
  lines.length = 0;
  xhsNote(461, 'captcha');
  t.equal(
    await canaryRun(h.services, parseCommandLine(['canary', 'run', 'jiexi/xiaohongshu']), (l) => lines.push(l)),
    1,
  );
  t.match(lines, [/^jiexi\/xiaohongshu +FAIL state=down .* risk_control: UPSTREAM_FAILED: /]);
  const err = await canaryRun(h.services, parseCommandLine(['canary', 'run', 'nope']), () => undefined).catch((e) => e);
  t.ok(err instanceof UsageError, 'a usage error: exit 2');
  t.equal(err.message, 'no canary is configured for operation "nope"');
  await t.rejects(
    canaryRun(h.services, parseCommandLine(['canary', 'run', 'jiexi/weibo']), () => undefined),
    { message: 'operation "jiexi" has no canary for platform "weibo"' },
  );
});

t.test('in Chromium: zh and en, desktop and phone, nothing overflows, no CSP refusal', async (t) => {
  if (!haveChromium(t, 'status page browser test')) return;
  t.ok(CHROMIUM);
  const dir = `${SHOTS}/status`;
  mkdirSync(dir, { recursive: true });
  const browser = await launchBrowser();
  t.teardown(() => browser.close());
  const base = `http://127.0.0.1:${h.client.port}`;
  for (const [device, viewport] of [
    ['desktop', { width: 1280, height: 800 }],
    ['phone', { width: 390, height: 844 }],
  ] as const) {
    for (const lang of ['zh', 'en'] as const) {
      const ctx = await browser.newContext({ viewport });
      const page = await ctx.newPage();
      const problems: string[] = [];
      watchProblems(page, problems);
      const res = await page.goto(`${base}/status?lang=${lang}`);
      t.equal(res?.status(), 200);
      const sizes = await page.evaluate(() => ({
        scroll: document.documentElement.scrollWidth,
        view: window.innerWidth,
      }));
      t.ok(sizes.scroll <= sizes.view, `${lang} ${device}: no horizontal scroll (${sizes.scroll} <= ${sizes.view})`);
      const bars = await page.locator('[data-op="jiexi"] .bars span').count();
      t.equal(bars, 24, `${lang} ${device}: 24 hourly bars`);
      const chip = await page.locator('[data-platform="xiaohongshu"]').innerText();
      t.match(chip, lang === 'zh' ? /小红书 · 故障/ : /Xiaohongshu · Down/);
      const down = await page
        .locator('[data-platform="xiaohongshu"] .dot')
        .evaluate((e) => getComputedStyle(e).backgroundColor);
      t.equal(down, 'rgb(210, 60, 60)', 'a down platform is red');
      await page.screenshot({ path: `${dir}/${lang}-${device}.png`, fullPage: true });
      t.same(problems, [], `${lang} ${device}: no page errors or CSP refusals`);
      await ctx.close();
    }
  }
});
