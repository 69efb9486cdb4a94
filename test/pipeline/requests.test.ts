// Request handling: one input from GET, JSON and form; route aliases; idempotency; cache and single flight;
// rate and concurrency limits; body size; health.

import nock from 'nock';
import t from 'tap';
import { createTestApp, type TestApp } from '../helpers/create-test-app.js';

nock.disableNetConnect();
let h: TestApp;
t.before(async () => {
  h = await createTestApp();
});
t.afterEach(() => h.assertReconciled());
t.teardown(() => h.close());

t.test(
  'GET query, JSON body and form body give the same input; numbers coerced only where the schema says',
  async (t) => {
    const u = await h.user('1');
    const key = { 'X-API-Key': u.key };
    const get = await h.client.get('/api/echo?msg=hi&n=2.5&flag=true', key);
    const json = await h.client.post('/api/echo', { msg: 'hi', n: 2.5, flag: true }, key);
    const form = await h.client.request('/api/echo', {
      method: 'POST',
      body: 'msg=hi&n=2.5&flag=true',
      headers: { ...key, 'content-type': 'application/x-www-form-urlencoded' },
    });
    for (const r of [get, json, form]) {
      t.equal(r.status, 200);
      t.same(r.body.data.input, { msg: 'hi', n: 2.5, flag: true });
    }
    const strict = await h.client.post('/api/echo', { msg: 'hi', n: '2.5' }, key);
    t.equal(strict.status, 400, 'a JSON body keeps its types: a string is not a number');
    t.equal(strict.body.error.message, "Invalid input for echo: parameter 'n' must be a number.");
    const keyInBody = await h.client.post('/api/echo', { msg: 'hi', api_key: u.key }, {});
    t.equal(keyInBody.status, 200, 'api_key in the body authenticates and is not part of the input');
    t.same(keyInBody.body.data.input, { msg: 'hi' });
    const keyInQuery = await h.client.get(`/api/echo?msg=q&api_key=${u.key}`);
    t.equal(keyInQuery.status, 200);
    t.same(keyInQuery.body.data.input, { msg: 'q' });
    const xml = await h.client.request('/api/echo', {
      method: 'POST',
      body: '<a/>',
      headers: { ...key, 'content-type': 'application/xml' },
    });
    t.equal(xml.status, 415);
    t.equal(xml.body.error.code, 'UNSUPPORTED_MEDIA_TYPE');
    t.match(xml.body.error.message, /Unsupported Content-Type/);
    const both = await h.client.post('/api/echo?msg=a', { msg: 'b' }, key);
    t.equal(both.status, 400);
    t.equal(both.body.error.message, "parameter 'msg' is given in both the query and the body");
    const badJson = await h.client.request('/api/echo', {
      method: 'POST',
      body: '{"msg":',
      headers: { ...key, 'content-type': 'application/json' },
    });
    t.equal(badJson.status, 400);
    t.equal(badJson.body.error.code, 'INVALID_INPUT');
    t.equal(
      (await h.ledger(u.userId)).filter((r) => r.kind === 'charge').length,
      5,
      'only the 5 successes were charged',
    );
  },
);

t.test('a routes: alias binds path params into the input and bills like /api/{code}', async (t) => {
  const u = await h.user('1');
  const res = await h.client.get('/api/items/42?fields=a', { 'X-API-Key': u.key });
  t.equal(res.status, 200);
  t.same(res.body.data.input, { id: '42', fields: 'a' });
  t.equal(res.body.data.operation, 'item');
  t.equal(res.body.deducted, 0.002);
  const bad = await h.client.get('/api/items/abc', { 'X-API-Key': u.key });
  t.equal(bad.status, 400);
  t.equal(bad.body.error.message, "Invalid input for item: parameter 'id' has an invalid format.");
  const direct = await h.client.get('/api/item?id=7', { 'X-API-Key': u.key });
  t.equal(direct.status, 200);
  t.same(direct.body.data.input, { id: '7' });
});

t.test('Idempotency-Key: a retry returns the first response and charges once; another request is 409', async (t) => {
  const u = await h.user('1');
  const headers = { 'X-API-Key': u.key, 'Idempotency-Key': 'order-123' };
  const first = await h.client.get('/api/echo?msg=pay', headers);
  const retry = await h.client.get('/api/echo?msg=pay', headers);
  t.equal(first.status, 200);
  t.equal(retry.status, 200);
  t.equal(retry.text, first.text, 'byte-identical replay');
  t.equal(retry.headers['idempotent-replayed'], 'true');
  const other = await h.client.get('/api/echo?msg=other', headers);
  t.equal(other.status, 409);
  t.equal(other.body.error.code, 'IDEMPOTENCY_CONFLICT');
  t.equal(other.body.deducted, 0);
  const charges = (await h.ledger(u.userId)).filter((r) => r.kind === 'charge');
  t.equal(charges.length, 1);
  t.same(await h.balance(u.userId), { balance: 990_000, held: 0 });
  const failed = await h.client.get('/api/throws', { 'X-API-Key': u.key, 'Idempotency-Key': 'retry-me' });
  t.equal(failed.status, 500);
  const again = await h.client.get('/api/throws?mode=normal', { 'X-API-Key': u.key, 'Idempotency-Key': 'retry-me' });
  t.equal(again.status, 200, 'a failure is not stored: the key is free for the retry');
  t.equal((await h.ledger(u.userId)).filter((r) => r.kind === 'charge').length, 2);
});

t.test(
  'cache: a hit is served without the plugin and marked cached; identical concurrent calls share one run',
  async (t) => {
    const u = await h.user('1');
    const key = { 'X-API-Key': u.key };
    const first = await h.client.get('/api/echo_cached?msg=c1', key);
    const second = await h.client.get('/api/echo_cached?msg=c1', key);
    t.equal(first.body.cached, false);
    t.equal(second.body.cached, true);
    t.same(second.body.data, first.body.data);
    t.match(second.headers['server-timing'], /cache;desc="hit"/);
    t.equal(second.body.deducted, 0.01, 'without a plan a cache hit costs the price');
    const burst = await Promise.all(
      Array.from({ length: 5 }, () => h.client.get('/api/echo_cached?msg=same-moment', key)),
    );
    const calls = new Set(burst.map((r) => r.body.data.calls));
    // On PostgreSQL the five queue on the user's row lock and reach the plugin stage milliseconds apart, so only
    // SQLite (one in-process connection) lines them up at the same moment; SingleFlight has its own unit test.
    if (h.services.store.dialect === 'sqlite') t.equal(calls.size, 1, 'one plugin run answered all five');
    t.equal((await h.ledger(u.userId)).filter((r) => r.kind === 'charge').length, 7, 'every caller is billed');
  },
);

t.test('rate limit: 429 RATE_LIMITED with Retry-After, charged 0', async (t) => {
  const u = await h.user('1', { rate_limit_per_sec: 1, rate_limit_burst: 2 });
  const key = { 'X-API-Key': u.key };
  const a = await h.client.get('/api/echo?msg=1', key);
  const b = await h.client.get('/api/echo?msg=2', key);
  const c = await h.client.get('/api/echo?msg=3', key);
  t.equal(a.headers['x-ratelimit-limit'], '2');
  t.equal(a.headers['x-ratelimit-remaining'], '1');
  t.equal(b.headers['x-ratelimit-remaining'], '0');
  t.equal(c.status, 429);
  t.equal(c.body.error.code, 'RATE_LIMITED');
  t.equal(c.headers['retry-after'], '1');
  t.equal(c.body.deducted, 0);
  t.equal((await h.ledger(u.userId)).filter((r) => r.kind === 'charge').length, 2);
});

t.test('in-flight cap: 429 CONCURRENCY_LIMITED', async (t) => {
  const u = await h.user('1', { max_concurrency: 1 });
  const key = { 'X-API-Key': u.key };
  const [a, b] = await Promise.all([
    h.client.get('/api/echo?spinMs=300', key),
    h.client.get('/api/echo?spinMs=300&msg=x', key),
  ]);
  const statuses = [a.status, b.status].sort();
  t.same(statuses, [200, 429]);
  const limited = a.status === 429 ? a : b;
  t.equal(limited.body.error.code, 'CONCURRENCY_LIMITED');
  t.equal(limited.headers['retry-after'], '1');
});

t.test('a body over the limit is 413 PAYLOAD_TOO_LARGE', async (t) => {
  const u = await h.user('1');
  const res = await h.client.post('/api/echo', { msg: 'x'.repeat(300 * 1024) }, { 'X-API-Key': u.key });
  t.equal(res.status, 413);
  t.equal(res.body.error.code, 'PAYLOAD_TOO_LARGE');
  t.match(res.body.request_id, /^req_/);
});

t.test('health needs no key and reports database, operations and version', async (t) => {
  const res = await h.client.get('/api/health');
  t.equal(res.status, 200);
  t.match(res.body, {
    status: 'ok',
    version: '0.1.0',
    database: { status: 'ok', dialect: h.services.store.dialect },
    operations: { loaded: 12 },
  });
  t.ok(res.body.plugins.includes('echo'));
});

t.test('an unknown console API path is a JSON 404, not the web page', async (t) => {
  const res = await h.client.get('/console/api/nothing-here');
  t.equal(res.status, 404);
  t.equal(res.body.error.code, 'RESOURCE_NOT_FOUND');
  t.match(res.body.request_id, /^req_/);
});

t.test('parameter names are own names: "__proto__" is an unknown parameter, "toString" is no clash', async (t) => {
  const u = await h.user('1');
  const key = { 'X-API-Key': u.key };
  const proto = await h.client.request('/api/echo', {
    method: 'POST',
    body: '{"msg":"hi","__proto__":{"polluted":true}}',
    headers: { ...key, 'content-type': 'application/json' },
  });
  t.equal(proto.status, 400, 'refused by the schema like any other unknown parameter');
  t.equal(proto.body.error.code, 'INVALID_INPUT');
  t.equal(({} as Record<string, unknown>).polluted, undefined);
  const inQuery = await h.client.get('/api/echo?msg=hi&__proto__=x', key);
  t.equal(inQuery.status, 400);
  t.equal(inQuery.body.error.code, 'INVALID_INPUT');
  const inherited = await h.client.post('/api/echo?msg=hi', { toString: 'x' }, key);
  t.equal(inherited.status, 400);
  t.notMatch(inherited.body.error.message, /both the query and the body/, 'an inherited name is not a clash');
  t.same(await h.ledger(u.userId).then((rows) => rows.map((r) => r.kind)), ['grant'], 'nothing charged');
});
