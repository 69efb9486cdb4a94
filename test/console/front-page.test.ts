// The public front page at /: server-rendered HTML with the price list, plans and packages
// from operations.yaml in Chinese or English (?lang=, Accept-Language), a try-it curl, links to the docs and the
// console; a strict CSP that allows only its own inline stylesheet by hash; HEAD, ETag/304; rebuilt when the
// config reloads and not before.

import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import t from 'tap';
import { readAccountSettings } from '../../core/config/account-env.js';
import { createTestApp, type TestApp } from '../helpers/create-test-app.js';

const YAML = readFileSync('test/fixtures/operations.test.yaml', 'utf8')
  .replace(
    / {2}- code: echo\n {4}name: Echo\n {4}description: Returns its input \(test plugin\)\n/,
    '  - code: echo\n    name: { zh: 回声 <b>&, en: Echo <b>& }\n    description: { zh: 原样返回输入, en: "Returns its input, \\"quoted\\"" }\n',
  )
  .replace(
    // An operation whose provider is not configured: listed, marked unavailable.
    '  - code: echo_cached\n    plugin: echo\n',
    '  - code: echo_cached\n    plugin: echo\n    requires: [[token]]\n    options: { token: "${FRONT_PAGE_TEST_UNSET}" }\n',
  );

let h: TestApp;
t.before(async () => {
  h = await createTestApp({
    operationsYaml: YAML,
    settings: { accounts: readAccountSettings({ PUBLIC_URL: 'https://api.example.com/' }, 8080) },
  });
});
t.teardown(() => h.close());

/** The text of the page's one <style> element, which the CSP must name by hash. */
const styleOf = (html: string): string => /<style>([\s\S]*)<\/style>/.exec(html)![1];
const sha = (s: string): string => createHash('sha256').update(s).digest('base64');

t.test('GET / in Chinese by default: headers, CSP by hash, prices, plans, packages, try-it and links', async (t) => {
  const res = await h.client.get('/');
  t.equal(res.status, 200);
  t.equal(res.headers['content-type'], 'text/html; charset=utf-8');
  t.equal(res.headers['content-language'], 'zh-CN');
  t.equal(res.headers.vary, 'Accept-Language');
  t.equal(res.headers['cache-control'], 'public, max-age=60');
  t.equal(res.headers['x-content-type-options'], 'nosniff');
  t.equal(res.headers['x-frame-options'], 'DENY');
  t.equal(res.headers['referrer-policy'], 'no-referrer');
  const html = res.text;
  t.equal(
    res.headers['content-security-policy'],
    `default-src 'none'; style-src 'sha256-${sha(styleOf(html))}'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
    'no script at all; the inline stylesheet is allowed by its exact hash',
  );
  t.notMatch(html, /<script/i);
  t.match(html, /^<!doctype html>\n<html lang="zh-CN">/);
  t.match(html, '<title>Tollgate 数据接口</title>');
  // Names from operations.yaml {zh, en}, HTML-escaped; a plain string name serves both languages.
  t.match(
    html,
    '<article class="card" data-op="echo"><h3>回声 &lt;b&gt;&amp;</h3><code>GET /api/echo</code><p>原样返回输入</p><div class="price">0.01 TOKEN <small>/ 次</small></div><p class="per1000">约 ¥10 / 千次</p></article>',
  );
  t.match(html, '<article class="card" data-op="item"><h3>');
  t.match(
    html,
    '<article class="card off" data-op="echo_cached"><h3>echo_cached <span class="badge">暂不可用</span></h3>',
    'an unconfigured operation is marked unavailable',
  );
  t.match(
    html,
    '<article class="card" data-plan="basic"><h3>Basic</h3><p>30 天 · 每天 3 次免费调用 · 同时最多 2 个 · 缓存命中免费 · 赠送 1 TOKEN</p><div class="price">¥10 <small>/ 30 天</small></div></article>',
  );
  t.match(
    html,
    '<article class="card" data-package="p10"><h3>10 TOKEN</h3><p>到账 10 TOKEN</p><div class="price">¥10</div></article>',
  );
  t.match(
    html,
    '<pre data-example="curl">curl &quot;https://api.example.com/api/echo?msg=hello&quot; \\\n  -H &quot;X-API-Key: sk_your_key&quot;</pre>',
    'a curl for the first operation with an example, at PUBLIC_URL',
  );
  // Links into the console carry the page's language (the console speaks it from the first page on).
  for (const href of [
    '/console/docs?lang=zh',
    '/openapi.json',
    '/console/?lang=zh',
    '/console/register?lang=zh',
    '/console/login?lang=zh',
    '/?lang=en',
  ])
    t.match(html, `href="${href}"`, href);
  t.notMatch(html, /href="\/console\/[^"?]*"/, 'no console link without the language');
});

t.test('English by ?lang=en or Accept-Language; ?lang wins over the header', async (t) => {
  const byQuery = await h.client.get('/?lang=en', { 'accept-language': 'zh-CN' });
  t.equal(byQuery.headers['content-language'], 'en');
  t.equal(byQuery.headers.vary, undefined, 'an explicit language does not vary by header');
  t.match(byQuery.text, /^<!doctype html>\n<html lang="en">/);
  t.match(
    byQuery.text,
    '<h3>Echo &lt;b&gt;&amp;</h3><code>GET /api/echo</code><p>Returns its input, &quot;quoted&quot;</p><div class="price">0.01 TOKEN <small>/ call</small></div><p class="per1000">about ¥10 per 1,000 calls</p>',
  );
  t.match(byQuery.text, '<p>30 days · 3 free calls a day · up to 2 at a time · cache hits free · 1 TOKEN included</p>');
  t.match(byQuery.text, 'href="/?lang=zh"');
  t.match(byQuery.text, 'href="/console/register?lang=en"', 'the sign-up link carries English');
  const byHeader = await h.client.get('/', { 'accept-language': 'en-US,en;q=0.9,zh;q=0.5' });
  t.equal(byHeader.text, byQuery.text);
  const unknown = await h.client.get('/?lang=fr', { 'accept-language': 'fr' });
  t.equal(unknown.headers['content-language'], 'zh-CN', 'an unknown language falls back to Chinese');
});

t.test('HEAD / answers the headers without a body; a matching If-None-Match is 304', async (t) => {
  const get = await h.client.get('/?lang=en');
  const head = await h.client.request('/?lang=en', { method: 'HEAD' });
  t.equal(head.status, 200);
  t.equal(head.text ?? '', '');
  t.equal(head.headers.etag, get.headers.etag);
  t.equal(head.headers['content-security-policy'], get.headers['content-security-policy']);
  t.match(get.headers.etag, /^"[A-Za-z0-9_-]{27}-(?:ok|degraded|down|unknown)"$/);
  const again = await h.client.get('/?lang=en', { 'if-none-match': get.headers.etag });
  t.equal(again.status, 304);
  t.equal(again.text ?? '', '');
  t.not((await h.client.get('/?lang=zh')).headers.etag, get.headers.etag, 'each language has its own tag');
});

t.test('built once per config load: the same page until operations.yaml changes, then the new prices', async (t) => {
  const before = await h.client.get('/?lang=en');
  t.equal((await h.client.get('/?lang=en')).headers.etag, before.headers.etag);
  const file = h.services.settings.operationsFile;
  writeFileSync(file, readFileSync(file, 'utf8').replace('price_per_call: 0.01\n', 'price_per_call: 0.02\n'));
  t.equal(await h.services.registry.reload(), true);
  const after = await h.client.get('/?lang=en');
  t.not(after.headers.etag, before.headers.etag);
  t.match(
    after.text,
    '<div class="price">0.02 TOKEN <small>/ call</small></div><p class="per1000">about ¥20 per 1,000 calls</p>',
  );
});

t.test('a path that is not the front page is still a 404', async (t) => {
  t.equal((await h.client.get('/index.html')).status, 404);
  t.equal((await h.client.post('/', {})).status, 405);
});
