// F1: behind proxies the client IP is the right-most X-Forwarded-For entry not written by a trusted proxy, so a
// client-written entry cannot pass ip_allow. TRUST_PROXY takes a hop count or the proxies' CIDR blocks.

import { resolve } from 'node:path';
import nock from 'nock';
import t from 'tap';
import { parseTrustProxy } from '../../core/config/edge-env.js';
import { readSettings } from '../../core/config/env.js';
import { compileClientIp } from '../../core/http/client-ip.js';
import { createTestApp, type TestApp } from '../helpers/create-test-app.js';

nock.disableNetConnect();

t.test('TRUST_PROXY parses a hop count or a CIDR list and refuses "true" and typos', async (t) => {
  t.equal(parseTrustProxy(undefined), null);
  t.equal(parseTrustProxy(''), null);
  t.equal(parseTrustProxy('0'), null);
  t.equal(parseTrustProxy('false'), null);
  t.same(parseTrustProxy('1'), { hops: 1 });
  t.same(parseTrustProxy(' 2 '), { hops: 2 });
  t.same(parseTrustProxy('10.0.0.0/8, 192.168.1.5,fd00::/8'), { cidrs: ['10.0.0.0/8', '192.168.1.5', 'fd00::/8'] });
  t.throws(() => parseTrustProxy('true'), /would trust a client-written X-Forwarded-For/);
  t.throws(() => parseTrustProxy('10.0.0.0/33'), /"10.0.0.0\/33" is not an IP address or CIDR block/);
  t.throws(() => parseTrustProxy('10.0.0.0/8,balancer'), /"balancer" is not an IP address/);
  t.throws(() => parseTrustProxy('17'), /hop count must be from 0 to 16/);
  t.same(readSettings({ TRUST_PROXY: '1' }).trustProxy, { hops: 1 });
});

t.test('the client is the right-most untrusted hop', async (t) => {
  const none = compileClientIp(null);
  t.equal(none('198.51.100.9', '203.0.114.7'), '198.51.100.9', 'without TRUST_PROXY the header is ignored');
  t.equal(none('::ffff:198.51.100.9', undefined), '198.51.100.9', 'an IPv4 client on a dual-stack socket');

  const oneHop = compileClientIp({ hops: 1 });
  t.equal(
    oneHop('10.0.0.1', '203.0.114.7, 198.51.100.9'),
    '198.51.100.9',
    'the entry the balancer appended, not the forged one',
  );
  t.equal(oneHop('10.0.0.1', '198.51.100.9'), '198.51.100.9');
  t.equal(oneHop('10.0.0.1', undefined), '10.0.0.1', 'no header: the peer');
  t.equal(oneHop('10.0.0.1', '198.51.100.9:51234'), '198.51.100.9', 'a port appended by the balancer is dropped');
  t.equal(oneHop('10.0.0.1', '[2001:db8::7]:443'), '2001:db8::7');

  const twoHops = compileClientIp({ hops: 2 });
  t.equal(twoHops('10.0.0.2', '203.0.114.7, 198.51.100.9, 10.0.0.1'), '198.51.100.9');
  t.equal(twoHops('10.0.0.2', '198.51.100.9'), '198.51.100.9', 'fewer entries than hops: the left-most there is');

  const cidrs = compileClientIp({ cidrs: ['10.0.0.0/8', 'fd00::/8'] });
  t.equal(
    cidrs('10.0.0.1', '203.0.114.7, 198.51.100.9, 10.0.0.2'),
    '198.51.100.9',
    'trusted proxies are skipped, however many',
  );
  t.equal(cidrs('::ffff:10.0.0.1', '198.51.100.9'), '198.51.100.9');
  t.equal(cidrs('fd00::5', '2001:db8::9'), '2001:db8::9');
  t.equal(cidrs('198.51.100.20', '203.0.114.7'), '198.51.100.20', 'a peer that is not a proxy cannot speak for anyone');
  t.equal(
    cidrs('10.0.0.1', 'garbage, 10.0.0.2'),
    '10.0.0.2',
    'a malformed entry stops the walk at the proxy that wrote it',
  );
  t.equal(cidrs('10.0.0.1', '10.0.0.3, 10.0.0.2'), '10.0.0.3', 'all trusted: the left-most');
});

t.test('ip_allow and the call log use that IP: a forged left-most entry no longer passes', async (t) => {
  // The test client connects from 127.0.0.1, which plays the balancer.
  const h = await createTestApp({
    pluginDirs: [resolve('test/fixtures/plugins')],
    settings: { trustProxy: { hops: 1 } },
  });
  t.teardown(() => h.close());
  const u = await h.user('1', { ip_allow: ['203.0.114.7'] });
  const key = { 'X-API-Key': u.key };
  const forged = await h.client.get('/api/echo?msg=a', { ...key, 'X-Forwarded-For': '203.0.114.7, 198.51.100.9' });
  t.equal(forged.status, 403);
  t.equal(forged.body.error.code, 'IP_NOT_ALLOWED');
  t.equal(forged.body.error.message, 'This API key may not be used from 198.51.100.9.');
  const real = await h.client.get('/api/echo?msg=b', { ...key, 'X-Forwarded-For': '198.51.100.9, 203.0.114.7' });
  t.equal(real.status, 200, 'the allowed address, appended by the balancer');
  const direct = await h.client.get('/api/echo?msg=c', key);
  t.equal(direct.status, 403, 'no header: the balancer itself, not allowed');
  const log = await h.callLog(u.userId);
  t.same(
    log.map((r) => r.ip),
    ['203.0.114.7'],
    'the served call',
  );
  t.same(await refusedFrom(h, u.userId), ['127.0.0.1', '198.51.100.9'], 'the refused ones are counted by that IP');
  t.equal((await h.ledger(u.userId)).filter((r) => r.kind === 'charge').length, 1, 'only the allowed call was charged');
  await h.assertReconciled();
});

t.test('without TRUST_PROXY, X-Forwarded-For is ignored everywhere', async (t) => {
  const h = await createTestApp({ pluginDirs: [resolve('test/fixtures/plugins')] });
  t.teardown(() => h.close());
  const u = await h.user('1', { ip_allow: ['203.0.114.7'] });
  const r = await h.client.get('/api/echo?msg=a', { 'X-API-Key': u.key, 'X-Forwarded-For': '203.0.114.7' });
  t.equal(r.status, 403);
  t.equal(r.body.error.message, 'This API key may not be used from 127.0.0.1.');
  t.same(await refusedFrom(h, u.userId), ['127.0.0.1']);
});

/** The addresses a user's refused key was counted from (core/store/refused-log.ts). */
async function refusedFrom(h: TestApp, userId: number): Promise<string[]> {
  await h.services.refused.log.flush();
  const rows = await h.services.store.db
    .selectFrom('refused_requests')
    .select('source')
    .where('user_id', '=', userId)
    .where('code', '=', 'IP_NOT_ALLOWED')
    .orderBy('source')
    .execute();
  return rows.map((r) => r.source);
}
