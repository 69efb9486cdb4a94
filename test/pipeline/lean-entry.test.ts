// The lean /api entry (core/pipeline/lean-entry.ts): body-less calls are answered ahead of the Koa stack, with the
// same answer the Koa route gives; everything else still reaches Koa.
import { createRequire } from 'node:module';
import { connect } from 'node:net';
import type Koa from 'koa';
import nock from 'nock';
import t from 'tap';
import { parseQuery } from '../../core/http/api-edge.js';
import { createTestApp, type TestApp } from '../helpers/create-test-app.js';
import { startClient, type TestClient } from '../helpers/http.js';

const koaSearchParams = createRequire(import.meta.url)('koa/lib/search-params.js') as {
  parse(text: string): Record<string, unknown>;
};

nock.disableNetConnect();
let h: TestApp;
let client: TestClient;
/** Every request Koa's own middleware saw, as "METHOD url". */
const seenByKoa: string[] = [];
t.before(async () => {
  h = await createTestApp();
  const recorder: Koa.Middleware = (ctx, next) => {
    seenByKoa.push(`${ctx.method} ${ctx.url}`);
    return next();
  };
  h.app.middleware.unshift(recorder);
  client = await startClient(h.app); // callback() composes the middleware again, recorder first
});
t.beforeEach(() => {
  seenByKoa.length = 0;
});
t.afterEach(() => h.assertReconciled());
t.teardown(async () => {
  await client.close();
  await h.close();
});

t.test('the query is read exactly as Koa reads it', async (t) => {
  const corpus = [
    'phone=13800138000',
    'a=1&a=2&a=3&b=',
    'a&b=&=c&&d==e',
    'msg=hello+world&x=%E4%BD%A0%E5%A5%BD',
    'msg=%zz&y=%E4%BD',
    '__proto__=1&constructor=2&toString=3',
    'k=v=w&K=V',
    '',
    '&&&',
    'a=%2B+%26',
  ];
  for (const q of corpus) t.same({ ...parseQuery(q) }, { ...koaSearchParams.parse(q) }, `?${q}`);
  t.equal(Object.getPrototypeOf(parseQuery('__proto__=1')), null, '__proto__ is a plain key, never a prototype');
});

t.test('a GET and a body-less POST are answered by the lean entry, billed exactly like the Koa route', async (t) => {
  const u = await h.user('1');
  const lean = await client.get('/api/echo?msg=hi', { 'X-API-Key': u.key });
  const leanPost = await client.request('/api/echo?msg=hi', { method: 'POST', headers: { 'X-API-Key': u.key } });
  t.same(seenByKoa, [], 'Koa saw neither request');
  const viaKoa = await client.post('/api/echo', { msg: 'hi' }, { 'X-API-Key': u.key });
  t.same(seenByKoa, ['POST /api/echo'], 'a call with a body is Koa’s');
  for (const r of [lean, leanPost, viaKoa]) {
    t.equal(r.status, 200);
    t.match(r.body, { success: true, data: { input: { msg: 'hi' } }, deducted: 0.01, cached: false });
    t.match(r.body.request_id, /^req_[0-9A-Z]{9}[A-Za-z0-9_-]{12}$/);
    t.equal(r.headers['x-request-id'], r.body.request_id);
  }
  t.same(
    [lean, leanPost, viaKoa].map((r) => r.body.remaining),
    [0.99, 0.98, 0.97],
  );
  const names = (r: typeof lean) => Object.keys(r.headers).filter((n) => n !== 'date' && n !== 'content-length');
  t.same(names(lean).sort(), names(viaKoa).sort(), 'the same headers on both entries');
  for (const name of ['content-type', 'cache-control', 'x-content-type-options', 'x-frame-options', 'referrer-policy'])
    t.equal(lean.headers[name], viaKoa.headers[name], name);
  t.equal(Number(lean.headers['content-length']), Buffer.byteLength(lean.text), 'Content-Length counts bytes');
  t.same(
    (await h.ledger(u.userId)).map((r) => [r.kind, r.amount, r.ref]),
    [
      ['grant', 1_000_000, `test-grant:${u.userId}`],
      ['charge', -10_000, lean.body.request_id],
      ['charge', -10_000, leanPost.body.request_id],
      ['charge', -10_000, viaKoa.body.request_id],
    ],
  );
  t.same(
    (await h.callLog(u.userId)).map((r) => [r.request_id, r.status, r.charged]),
    [lean, leanPost, viaKoa].map((r) => [r.body.request_id, 200, 10_000]),
  );
});

t.test('refusals on the lean entry are the same envelope, free, in the caller’s language', async (t) => {
  const u = await h.user('0');
  const missing = await client.get('/api/echo?msg=hi', { 'Accept-Language': 'zh-CN' });
  t.equal(missing.status, 401);
  t.equal(missing.body.error.code, 'MISSING_API_KEY');
  t.match(missing.body.error.message, /[\u4e00-\u9fff]/, 'Chinese for a Chinese caller');
  const poor = await client.get('/api/echo?msg=hi', { 'X-API-Key': u.key });
  t.equal(poor.status, 402);
  t.match(poor.body, { success: false, error: { code: 'INSUFFICIENT_BALANCE' }, deducted: 0, remaining: 0 });
  const twice = await client.get('/api/echo?msg=a&msg=b', { 'X-API-Key': u.key });
  t.equal(twice.status, 400, 'a repeated parameter is an array, refused by the schema as on the Koa route');
  t.equal(twice.body.error.code, 'INVALID_INPUT');
  const unknown = await client.get('/api/nope', { 'X-API-Key': u.key });
  t.equal(unknown.status, 404);
  t.equal(unknown.body.error.code, 'UNKNOWN_OPERATION');
  t.same(seenByKoa, [], 'all answered by the lean entry');
  t.same(await h.ledger(u.userId), [], 'nothing charged');
});

t.test('what is not a body-less /api call still goes to Koa', async (t) => {
  const u = await h.user('1');
  const head = await client.request('/api/echo?msg=hi', { method: 'HEAD', headers: { 'X-API-Key': u.key } });
  t.equal(head.status, 405, 'HEAD is refused by the router, never billed');
  const health = await client.get('/api/health');
  t.equal(health.status, 200);
  const healthSlash = await client.get('/API/Health/');
  t.equal(healthSlash.status, 200, 'the router matches its own routes case-insensitively, with a trailing slash');
  const balance = await client.get('/api/_balance', { 'X-API-Key': u.key });
  t.equal(balance.status, 200);
  t.equal(balance.body.data.balance, 1);
  const upper = await client.get('/API/echo?msg=hi', { 'X-API-Key': u.key });
  t.equal(upper.status, 404, 'an upper-case /API path: routed by Koa, no such operation (as before the lean entry)');
  t.equal(upper.body.error.code, 'UNKNOWN_OPERATION');
  const bare = await client.get('/api/', { 'X-API-Key': u.key });
  t.equal(bare.status, 404);
  t.same(seenByKoa, [
    'HEAD /api/echo?msg=hi',
    'GET /api/health',
    'GET /API/Health/',
    'GET /api/_balance',
    'GET /API/echo?msg=hi',
    'GET /api/',
  ]);
  t.same(
    (await h.ledger(u.userId)).map((r) => r.kind),
    ['grant'],
    'none of them was billed',
  );
});

t.test('a fault outside the pipeline is the INTERNAL envelope with the request id, logged', async (t) => {
  const u = await h.user('1');
  const registry = h.services.registry;
  const current = Object.getOwnPropertyDescriptor(registry, 'current');
  Object.defineProperty(registry, 'current', {
    configurable: true,
    get() {
      throw new Error('registry exploded');
    },
  });
  try {
    const r = await client.get('/api/echo?msg=hi', { 'X-API-Key': u.key });
    t.equal(r.status, 500);
    t.same(Object.keys(r.body), ['success', 'error', 'deducted', 'request_id']);
    t.match(r.body, { success: false, error: { code: 'INTERNAL' }, deducted: 0 });
    t.equal(r.headers['x-request-id'], r.body.request_id);
    t.notMatch(r.text, /exploded/, 'no internals in the answer');
    t.ok(
      h.logs.some((l) => l.message === 'request failed' && l.request_id === r.body.request_id),
      'the operator gets the reason in the log',
    );
  } finally {
    if (current) Object.defineProperty(registry, 'current', current);
    else delete (registry as { current?: unknown }).current;
  }
  t.same(await h.ledger(u.userId).then((rows) => rows.map((r) => r.kind)), ['grant']);
});

t.test('a client gone before its answer breaks nothing; answers of one turn all arrive', async (t) => {
  const u = await h.user('1');
  await new Promise<void>((resolve) => {
    const socket = connect(client.port, '127.0.0.1', () => {
      socket.write(`GET /api/echo?msg=gone HTTP/1.1\r\nHost: x\r\nX-API-Key: ${u.key}\r\n\r\n`);
      socket.destroy();
      resolve();
    });
  });
  // Ten at once: with the call of the client that left perhaps still in flight, well inside the per-key cap (20).
  const together = await Promise.all(
    Array.from({ length: 10 }, (_, i) => client.get(`/api/echo?msg=m${i}`, { 'X-API-Key': u.key })),
  );
  t.same(
    together.map((r) => [r.status, r.body?.data?.input?.msg ?? r.body?.error?.code]),
    Array.from({ length: 10 }, (_, i) => [200, `m${i}`]),
    'each answer went to its own caller',
  );
});
