// F5, F20 and appendix S1-S3: every answer at the HTTP edge is the JSON envelope with the right status, and
// nothing refused there runs a plugin or charges. Driven through the production server (createGatewayServer),
// because 431 and parser errors happen before the app.
import t, { type Test } from 'tap';
import type { TestApp } from '../helpers/create-test-app.js';
import { edgeSuite, type RawResponse, rawRequest } from './edge-support.js';

let h: TestApp;
let port: number;
edgeSuite(t, (app, p) => ((h = app), (port = p)));

function envelope(t: Test, r: RawResponse, status: number, code: string): void {
  t.equal(r.status, status, `${code}: status`);
  t.match(r.headers['content-type'], /^application\/json/, `${code}: JSON`);
  t.match(
    r.body,
    { success: false, error: { code, message: String }, deducted: 0, request_id: /^req_/ },
    `${code}: envelope`,
  );
}

const req = (method: string, path: string, headers: Record<string, string> = {}, body = ''): Promise<RawResponse> => {
  const lines = Object.entries({
    Host: 'gw',
    Connection: 'close',
    ...(body ? { 'Content-Length': String(Buffer.byteLength(body)) } : {}),
    ...headers,
  }).map(([k, v]) => `${k}: ${v}\r\n`);
  return rawRequest(port, `${method} ${path} HTTP/1.1\r\n${lines.join('')}\r\n${body}`);
};

t.test('F5: HEAD on /api/{code} is 405 with Allow, runs nothing and bills nothing', async (t) => {
  const u = await h.user('1');
  const head = await req('HEAD', '/api/echo?msg=hi', { 'X-API-Key': u.key });
  t.equal(head.status, 405);
  t.equal(head.headers.allow, 'GET, POST');
  t.equal(head.text, '', 'HEAD has no body');
  const alias = await req('HEAD', '/api/items/42', { 'X-API-Key': u.key });
  t.equal(alias.status, 405, 'the same on a routes: alias');
  t.same(await h.ledger(u.userId), [
    { amount: 1_000_000, kind: 'grant', ref: `test-grant:${u.userId}`, balance_after: 1_000_000, operation: null },
  ]);
  t.same(await h.balance(u.userId), { balance: 1_000_000, held: 0 });
  t.equal((await h.callLog(u.userId)).length, 0, 'no call was run, so none is logged');
  t.equal((await req('HEAD', '/api/health')).status, 200, 'HEAD /api/health still answers');
  t.equal((await req('GET', '/api/echo?msg=hi', { 'X-API-Key': u.key })).status, 200, 'GET still works');
});

t.test('F20/S1: wrong methods, TRACE and QUERY are an enveloped 405 with Allow', async (t) => {
  for (const method of ['PUT', 'DELETE', 'PATCH', 'TRACE', 'QUERY']) {
    const r = await req(method, '/api/echo');
    envelope(t, r, 405, 'METHOD_NOT_ALLOWED');
    t.equal(r.headers.allow, 'GET, POST', `${method} /api/echo: Allow`);
  }
  const consolePut = await req('PUT', '/console/api/keys');
  envelope(t, consolePut, 405, 'METHOD_NOT_ALLOWED');
  t.equal(consolePut.headers.allow, 'HEAD, GET, POST');
  const options = await req('OPTIONS', '/api/echo');
  t.equal(options.status, 200, 'OPTIONS lists the methods');
  t.equal(options.headers.allow, 'GET, POST');
});

t.test('F20: unknown paths, //api/phone included, are an enveloped 404', async (t) => {
  for (const path of ['//api/phone', '/nothing-here', '/api']) {
    const r = await req('GET', path);
    envelope(t, r, 404, 'RESOURCE_NOT_FOUND');
    t.equal(r.body.error.message, `There is nothing at GET ${path}.`);
  }
  const trace = await req('TRACE', '/nothing-here');
  envelope(t, trace, 404, 'RESOURCE_NOT_FOUND');
  t.notOk(trace.headers.allow, 'no empty Allow header');
});

t.test(
  'F20/S3: oversized request line or headers are an enveloped 431; a 17 KB share text in a GET is served',
  async (t) => {
    const huge = await req('GET', `/api/echo_free?msg=${'a'.repeat(100_000)}`);
    envelope(t, huge, 431, 'HEADERS_TOO_LARGE');
    t.match(huge.body.error.message, /POST body/);
    t.equal(huge.headers.connection, 'close');
    const bigHeader = await req('GET', '/api/health', { 'X-Big': 'x'.repeat(70_000) });
    envelope(t, bigHeader, 431, 'HEADERS_TOO_LARGE');
    const u = await h.user('1');
    const shareText = '这是一段很长的分享文字'.repeat(173).slice(0, 1900);
    const longGet = await req('GET', `/api/echo_free?msg=${encodeURIComponent(shareText)}`, {
      'X-API-Key': u.key,
      'X-Padding': 'y'.repeat(20_000),
    });
    t.ok(encodeURIComponent(shareText).length > 17_000, "the query alone is over Node's default 16 KiB");
    t.equal(longGet.status, 200, 'MAX_HEADER_BYTES (64 KiB) fits a schema-valid long GET and a 20 KB header');
    t.equal(longGet.body.data.input.msg, shareText);
  },
);

t.test('F20: malformed framing from the HTTP parser is an enveloped 400', async (t) => {
  envelope(t, await rawRequest(port, 'GARBAGE\r\n\r\n'), 400, 'INVALID_INPUT');
  envelope(t, await rawRequest(port, 'GET / HTTP/1.1\r\nHost: gw\r\nX-Nul: a\0b\r\n\r\n'), 400, 'INVALID_INPUT');
  const smuggle = await rawRequest(
    port,
    'POST /api/echo HTTP/1.1\r\nHost: gw\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
  );
  envelope(t, smuggle, 400, 'INVALID_INPUT');
  t.equal(smuggle.body.error.message, 'The HTTP request is malformed.');
});

t.test('F14: malformed percent-encoding in an /api path is 400, not 500, and free', async (t) => {
  const u = await h.user('1');
  for (const path of ['/api/%E0%A4%A', '/api/%', '/api/items/%E0%A4%A']) {
    const r = await req('GET', path, { 'X-API-Key': u.key });
    envelope(t, r, 400, 'INVALID_INPUT');
    t.match(r.body.error.message, /malformed percent-encoding/);
  }
  t.same(await h.balance(u.userId), { balance: 1_000_000, held: 0 });
});

t.test('S2: POST on a routes: alias is the same call with a body (documented), and OPTIONS says so', async (t) => {
  const u = await h.user('1');
  const post = await req(
    'POST',
    '/api/items/42',
    { 'X-API-Key': u.key, 'Content-Type': 'application/json' },
    '{"fields":"a"}',
  );
  t.equal(post.status, 200);
  t.same(post.body.data.input, { id: '42', fields: 'a' });
  t.equal(post.body.data.operation, 'item');
  t.equal(post.body.deducted, 0.002);
  const options = await req('OPTIONS', '/api/items/42');
  t.equal(options.headers.allow, 'GET, POST');
  const doc = (await h.client.get('/openapi.json')).body;
  const aliasPost = doc.paths['/api/items/{id}'].post;
  t.equal(aliasPost.operationId, 'item_post_api_items_id', 'the OpenAPI document lists POST on the alias');
  t.same(Object.keys(aliasPost.requestBody.content), ['application/json', 'application/x-www-form-urlencoded']);
  t.ok(aliasPost.responses['415'] && doc.paths['/api/echo'].get.responses['431'], '415 and 431 are documented answers');
  t.ok(doc.paths['/console/api/keys'].post.responses['415'], 'console bodies document 415');
  const ids = Object.values(doc.paths as Record<string, Record<string, { operationId: string }>>).flatMap((p) =>
    Object.values(p).map((o) => o.operationId),
  );
  t.equal(new Set(ids).size, ids.length, 'operationIds are unique');
});
