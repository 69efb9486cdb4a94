// F4 + F18: a plugin result is serialised and size-checked before capture. A result that cannot be sent (a bigint,
// a cycle, more than MAX_RESULT_BYTES) fails the call and charges nothing; an idempotent retry is not charged
// either. An ordinary result is sent as serialised, byte for byte the JSON of the data.

import { resolve } from 'node:path';
import t from 'tap';
import { stringify } from 'yaml';
import { createTestApp, type TestApp } from '../helpers/create-test-app.js';

const MAX = 64 * 1024;
const operationsYaml = stringify({
  operations: [
    {
      code: 'unsendable',
      plugin: 'unsendable',
      price_per_call: 0.01,
      cache_ttl: 60,
      timeout_ms: 3000,
      input: {
        type: 'object',
        additionalProperties: false,
        properties: { kind: { type: 'string' }, bytes: { type: 'integer' } },
      },
    },
  ],
});

let h: TestApp;
t.before(async () => {
  h = await createTestApp({
    operationsYaml,
    pluginDirs: [resolve('test/security/fixtures/plugins')],
    settings: { maxResultBytes: MAX },
  });
});
t.afterEach(() => h.assertReconciled());
t.teardown(() => h.close());

for (const kind of ['bigint', 'circular']) {
  t.test(`a ${kind} result is a failure, uncharged, also when retried with an Idempotency-Key`, async (t) => {
    const u = await h.user('1');
    for (let attempt = 0; attempt < 2; attempt++) {
      const res = await h.client.get(`/api/unsendable?kind=${kind}`, {
        'X-API-Key': u.key,
        'Idempotency-Key': `k-${kind}`,
      });
      t.equal(res.status, 500);
      t.match(res.body, {
        success: false,
        error: { code: 'INTERNAL', message: /cannot be sent; nothing was charged/ },
        deducted: 0,
        remaining: 1,
      });
    }
    t.same(await h.balance(u.userId), { balance: 1_000_000, held: 0 });
    t.equal((await h.ledger(u.userId)).length, 1, 'only the grant');
    const log = await h.callLog(u.userId);
    t.same(
      log.map((r) => [r.status, r.error_code, Number(r.charged)]),
      [
        [500, 'INTERNAL', 0],
        [500, 'INTERNAL', 0],
      ],
    );
    t.ok(
      h.logs.some((l) => l.message === 'plugin result refused' && /not JSON-serialisable/.test(String(l.reason))),
      'the reason is logged',
    );
  });
}

t.test('a result over MAX_RESULT_BYTES is refused before capture and never cached', async (t) => {
  const u = await h.user('1');
  const res = await h.client.get(`/api/unsendable?kind=size&bytes=${MAX}`, { 'X-API-Key': u.key });
  t.equal(res.status, 502);
  t.match(res.body, {
    error: { code: 'UPSTREAM_FAILED', message: /larger than this gateway sends; nothing was charged/ },
    deducted: 0,
  });
  t.same(await h.balance(u.userId), { balance: 1_000_000, held: 0 });
  const again = await h.client.get(`/api/unsendable?kind=size&bytes=${MAX}`, { 'X-API-Key': u.key });
  t.equal(again.status, 502, 'not served from a cache either');
  t.ok(h.logs.some((l) => /exceeds MAX_RESULT_BYTES \(65536\)/.test(String(l.reason))));
});

t.test('a result just under the cap is sent, charged once, and its cache hit carries the same bytes', async (t) => {
  const u = await h.user('1');
  const bytes = MAX - 100;
  const res = await h.client.get(`/api/unsendable?kind=size&bytes=${bytes}`, { 'X-API-Key': u.key });
  t.equal(res.status, 200);
  t.equal(res.body.data.s.length, bytes);
  t.match(res.body, { success: true, deducted: 0.01, remaining: 0.99, cached: false });
  const hit = await h.client.get(`/api/unsendable?kind=size&bytes=${bytes}`, { 'X-API-Key': u.key });
  t.match(hit.body, { success: true, cached: true, deducted: 0.01 });
  t.same(hit.body.data, res.body.data);
  t.same(await h.balance(u.userId), { balance: 980_000, held: 0 });
});

t.test('the envelope spliced around the serialised result is valid JSON with the usual fields in order', async (t) => {
  const u = await h.user('1');
  const res = await h.client.get('/api/unsendable?kind=ok', { 'X-API-Key': u.key });
  t.equal(res.status, 200);
  t.same(Object.keys(res.body), ['success', 'data', 'deducted', 'remaining', 'cached', 'request_id']);
  t.same(res.body.data, { fine: true });
  t.equal(res.body.request_id, res.headers['x-request-id']);
});
