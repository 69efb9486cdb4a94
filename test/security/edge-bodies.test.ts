// F14 (corrupt Content-Encoding), F16 (chunked bodies on /api), F17 (wrong Content-Type is 415, never silently
// dropped fields) and S5 (one rule for empty query values). Nothing refused here runs a plugin or charges.

import { brotliCompressSync, gzipSync } from 'node:zlib';
import t, { type Test } from 'tap';
import { issueUserToken } from '../../core/accounts/user-tokens.js';
import type { TestApp } from '../helpers/create-test-app.js';
import { edgeSuite, type RawResponse, streamedRequest } from './edge-support.js';

let h: TestApp;
let port: number;
edgeSuite(t, (app, p) => ((h = app), (port = p)));

function refused(t: Test, r: RawResponse, status: number, code: string): void {
  t.equal(r.status, status, `${code}: status`);
  t.match(
    r.body,
    { success: false, error: { code, message: String }, deducted: 0, request_id: /^req_/ },
    `${code}: envelope`,
  );
}

const charges = async (userId: number) => (await h.ledger(userId)).filter((r) => r.kind === 'charge').length;

t.test(
  'F14: a corrupt gzip, deflate or br body is 400 on /api and the console; an unknown encoding is 415',
  async (t) => {
    const u = await h.user('1');
    const json = { 'content-type': 'application/json', 'X-API-Key': u.key };
    for (const encoding of ['gzip', 'deflate', 'br']) {
      const api = await streamedRequest(port, '/api/echo', 'POST', { ...json, 'content-encoding': encoding }, ['x']);
      refused(t, api, 400, 'INVALID_INPUT');
      t.equal(
        api.body.error.message,
        `The request body is not valid ${encoding} data (Content-Encoding); nothing was run or charged.`,
      );
      const login = await streamedRequest(
        port,
        '/console/api/login',
        'POST',
        { 'content-type': 'application/json', 'content-encoding': encoding },
        ['x'],
      );
      refused(t, login, 400, 'INVALID_INPUT');
    }
    const truncated = gzipSync(JSON.stringify({ msg: 'hi' })).subarray(0, 12);
    refused(
      t,
      await streamedRequest(port, '/api/echo', 'POST', { ...json, 'content-encoding': 'gzip' }, [truncated]),
      400,
      'INVALID_INPUT',
    );
    const unknown = await streamedRequest(port, '/api/echo', 'POST', { ...json, 'content-encoding': 'zstd-ish' }, [
      '{}',
    ]);
    refused(t, unknown, 415, 'UNSUPPORTED_MEDIA_TYPE');
    t.match(unknown.body.error.message, /Unsupported Content-Encoding "zstd-ish"/);
    const good = await streamedRequest(port, '/api/echo', 'POST', { ...json, 'content-encoding': 'br' }, [
      brotliCompressSync(JSON.stringify({ msg: 'squeezed' })),
    ]);
    t.equal(good.status, 200, 'a valid compressed body is read');
    t.equal(good.body.data.input.msg, 'squeezed');
    t.equal(await charges(u.userId), 1, 'only the valid call was charged');
  },
);

t.test('a compressed body is limited after inflation: a 1 KB gzip of 2 MB is 413, uncharged', async (t) => {
  const u = await h.user('1');
  const bomb = gzipSync(Buffer.from(`{"msg":"${' '.repeat(2 * 1024 * 1024)}"}`));
  t.ok(bomb.length < 4096, `the bomb is ${bomb.length} bytes on the wire`);
  const r = await streamedRequest(
    port,
    '/api/echo',
    'POST',
    { 'content-type': 'application/json', 'content-encoding': 'gzip', 'X-API-Key': u.key },
    [bomb],
  );
  refused(t, r, 413, 'PAYLOAD_TOO_LARGE');
  t.equal(r.body.error.message, 'The request body is over 256 KB.');
  t.equal(await charges(u.userId), 0);
});

t.test('F16: a chunked JSON or form body on /api is read like a sized one', async (t) => {
  const u = await h.user('1');
  const chunked = await streamedRequest(
    port,
    '/api/echo',
    'POST',
    { 'content-type': 'application/json', 'X-API-Key': u.key },
    ['{"msg":', '"in pieces"}'],
  );
  t.equal(chunked.status, 200);
  t.same(chunked.body.data.input, { msg: 'in pieces' });
  const keyInBody = await streamedRequest(port, '/api/echo', 'POST', { 'content-type': 'application/json' }, [
    `{"msg":"k","api_key":"${u.key}"}`,
  ]);
  t.equal(keyInBody.status, 200, 'api_key in a chunked body authenticates');
  const form = await streamedRequest(
    port,
    '/api/echo',
    'POST',
    { 'content-type': 'application/x-www-form-urlencoded', 'X-API-Key': u.key },
    ['msg=fo', 'rm&n=3'],
  );
  t.equal(form.status, 200);
  t.same(form.body.data.input, { msg: 'form', n: 3 });
  t.equal(await charges(u.userId), 3);
});

t.test('F17: a body that is neither JSON nor a form on /api is 415 and free', async (t) => {
  const u = await h.user('1');
  for (const type of ['text/plain', 'application/xml', null]) {
    const headers: Record<string, string> = { 'X-API-Key': u.key, 'content-length': '14' };
    if (type) headers['content-type'] = type;
    const r = await streamedRequest(port, '/api/echo', 'POST', headers, ['{"msg":"text"}']);
    refused(t, r, 415, 'UNSUPPORTED_MEDIA_TYPE');
  }
  t.equal(await charges(u.userId), 0);
});

t.test('F17: the console refuses a non-JSON body with 415 instead of creating a key without its limits', async (t) => {
  const u = await h.user('0');
  const { token } = await issueUserToken(h.services.store.db, u.userId, 1);
  const auth = { authorization: `Bearer ${token}` };
  const body = JSON.stringify({ name: 'restricted', allowed_codes: ['echo'], daily_spend_cap: 1 });
  for (const type of ['text/plain', 'application/x-www-form-urlencoded', null]) {
    const headers: Record<string, string> = { ...auth, 'content-length': String(body.length) };
    if (type) headers['content-type'] = type;
    const r = await streamedRequest(port, '/console/api/keys', 'POST', headers, [body]);
    refused(t, r, 415, 'UNSUPPORTED_MEDIA_TYPE');
    t.match(r.body.error.message, /send Content-Type: application\/json/);
  }
  const keys = await h.services.store.db
    .selectFrom('api_keys')
    .select('name')
    .where('user_id', '=', u.userId)
    .execute();
  t.same(
    keys.map((k) => k.name),
    ['test'],
    'no key was created by the refused requests',
  );
  const chunked = await streamedRequest(
    port,
    '/console/api/keys',
    'POST',
    { ...auth, 'content-type': 'application/json' },
    [body.slice(0, 10), body.slice(10)],
  );
  t.equal(chunked.status, 201, 'a chunked JSON body is read by the console too');
  t.equal(chunked.body.key.name, 'restricted');
  t.same(chunked.body.key.limits.allowed_codes, ['echo']);
  const empty = await streamedRequest(
    port,
    '/console/api/logout',
    'POST',
    { ...auth, 'content-type': 'text/plain' },
    [],
  );
  t.not(empty.status, 415, 'an empty body needs no Content-Type');
});

t.test('S5: an empty query value means "absent" (the default applies); limit=0 is out of range', async (t) => {
  const u = await h.user('0');
  const { token } = await issueUserToken(h.services.store.db, u.userId, 1);
  const auth = { authorization: `Bearer ${token}` };
  const empty = await h.client.get('/console/api/ledger?limit=', auth);
  t.equal(empty.status, 200);
  const zero = await h.client.get('/console/api/ledger?limit=0', auth);
  t.equal(zero.status, 400);
  t.equal(zero.body.error.code, 'INVALID_INPUT');
  t.equal(zero.body.error.message, "'limit' must be an integer from 1 to 500.");
});
