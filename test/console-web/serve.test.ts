// core/console/web-serve.ts through the real app: index.html with the strict CSP, hashed assets cached for a
// year, SPA fallback for console URLs, /console/api left to the API, and a missing dist built on demand.

import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Koa from 'koa';
import t from 'tap';
import { buildConsoleBundle } from '../../core/build/console-bundle.js';
import { CONSOLE_CSP, serveConsoleWeb } from '../../core/console/web-serve.js';
import { createTestApp, type TestApp } from '../helpers/create-test-app.js';
import { startClient } from '../helpers/http.js';

let h: TestApp;
t.before(async () => {
  h = await createTestApp();
});
t.teardown(() => h.close());

const REQUIRED_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
];

t.test('/console/ is index.html with the strict CSP and security headers, revalidated on every load', async (t) => {
  const res = await h.client.get('/console/');
  t.equal(res.status, 200);
  t.match(res.headers['content-type'], /^text\/html/);
  t.equal(res.headers['content-security-policy'], CONSOLE_CSP);
  for (const part of REQUIRED_CSP) t.ok(CONSOLE_CSP.split('; ').includes(part), part);
  t.notMatch(CONSOLE_CSP, /unsafe-inline|unsafe-eval/);
  t.equal(res.headers['x-frame-options'], 'DENY');
  t.equal(res.headers['x-content-type-options'], 'nosniff');
  t.equal(res.headers['referrer-policy'], 'no-referrer');
  t.equal(res.headers['cache-control'], 'no-cache');
  t.match(res.text, /<script type="module" src="\/console\/assets\/console-[A-Z0-9]+\.js"><\/script>/);
  t.match(res.text, /<link rel="stylesheet" href="\/console\/assets\/console-[A-Z0-9]+\.css">/);
  t.notMatch(res.text, /<script>|<style|style=/, 'no inline script or style');
});

t.test('assets: right type, cached for a year as immutable', async (t) => {
  const html = (await h.client.get('/console/')).text;
  const js = /src="([^"]+\.js)"/.exec(html)?.[1] ?? '';
  const css = /href="([^"]+\.css)"/.exec(html)?.[1] ?? '';
  const a = await h.client.get(js);
  t.equal(a.status, 200);
  t.match(a.headers['content-type'], /^text\/javascript/);
  t.equal(a.headers['cache-control'], 'public, max-age=31536000, immutable');
  t.equal(a.headers['content-security-policy'], CONSOLE_CSP);
  const b = await h.client.get(css);
  t.equal(b.status, 200);
  t.match(b.headers['content-type'], /^text\/css/);
  t.equal(b.headers['cache-control'], 'public, max-age=31536000, immutable');
});

t.test('unknown assets are 404, never the SPA page; traversal is refused', async (t) => {
  for (const path of [
    '/console/assets/nope.js',
    '/console/assets/..%2F..%2Fpackage.json',
    '/console/assets/%2e%2e/serve.ts',
    '/console/assets/x.exe',
  ]) {
    const res = await h.client.get(path);
    t.equal(res.status, 404, path);
    t.notMatch(res.text, /<html/, path);
  }
});

t.test('SPA fallback: console URLs answer index.html; /console redirects to /console/', async (t) => {
  for (const path of ['/console/keys', '/console/docs/phone', '/console/admin/codes', '/console/debugger?op=phone']) {
    const res = await h.client.get(path);
    t.equal(res.status, 200, path);
    t.match(res.text, /<div id="app"/, path);
    t.equal(res.headers['content-security-policy'], CONSOLE_CSP, path);
  }
  const bare = await h.client.get('/console');
  t.equal(bare.status, 301);
  t.equal(bare.headers.location, '/console/');
});

t.test('/console/api stays the API: JSON errors, not the SPA page', async (t) => {
  const me = await h.client.get('/console/api/me');
  t.equal(me.status, 401);
  t.equal(me.body.error.code, 'UNAUTHORIZED');
  const unknown = await h.client.get('/console/api/no-such-route');
  t.not(unknown.status, 200);
  t.notMatch(unknown.text, /<div id="app"/);
  const post = await h.client.post('/console/keys', {});
  t.not(post.status, 200, 'only GET and HEAD are served');
});

t.test('a missing dist is built on the first request, once for concurrent requests', async (t) => {
  const dist = join(mkdtempSync(join(tmpdir(), 'console-dist-')), 'dist');
  let builds = 0;
  const app = new Koa();
  serveConsoleWeb(app, {
    distDir: dist,
    build: async (dir) => {
      builds++;
      await new Promise((r) => setTimeout(r, 50));
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'index.html'), '<div id="app"></div>');
    },
  });
  const client = await startClient(app);
  t.teardown(() => client.close());
  const [a, b] = await Promise.all([client.get('/console/'), client.get('/console/keys')]);
  t.equal(a.status, 200);
  t.equal(b.status, 200);
  t.equal(builds, 1);
});

t.test('the real build writes one JS, one CSS and index.html', async (t) => {
  const dist = join(mkdtempSync(join(tmpdir(), 'console-real-')), 'dist');
  const r = await buildConsoleBundle(dist, { quiet: true });
  t.match(r.js, /^console-[A-Z0-9]+\.js$/);
  t.match(r.css, /^console-[A-Z0-9]+\.css$/);
  t.ok(
    existsSync(join(dist, 'assets', r.js)) &&
      existsSync(join(dist, 'assets', r.css)) &&
      existsSync(join(dist, 'index.html')),
  );
});

t.test('a failing build answers 503 with the reason, not a silent 404', async (t) => {
  const app = new Koa();
  serveConsoleWeb(app, {
    distDir: join(tmpdir(), `nowhere-${Date.now()}`),
    build: async () => Promise.reject(new Error('esbuild exploded')),
  });
  const client = await startClient(app);
  t.teardown(() => client.close());
  const res = await client.get('/console/');
  t.equal(res.status, 503);
  t.match(res.text, /esbuild exploded/);
  t.match(res.text, /npm run postinstall/);
});
