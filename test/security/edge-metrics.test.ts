// F19 (first bullet): /metrics shows revenue per operation, so it is never public. On the main port it needs
// METRICS_TOKEN; METRICS_LISTEN serves it on a separate address; with neither the main port answers 404.

import { request } from 'node:http';
import { resolve } from 'node:path';
import nock from 'nock';
import t from 'tap';
import { readSettings } from '../../core/config/env.js';
import { listen } from '../../core/http/http-server.js';
import { createMetricsServer } from '../../core/http/metrics-endpoint.js';
import { createTestApp } from '../helpers/create-test-app.js';

nock.disableNetConnect();
const plugins = [resolve('test/fixtures/plugins')];

t.test('without METRICS_TOKEN the main port does not serve /metrics', async (t) => {
  const h = await createTestApp({ pluginDirs: plugins });
  t.teardown(() => h.close());
  const r = await h.client.get('/metrics');
  t.equal(r.status, 404);
  t.match(r.body, {
    success: false,
    error: { code: 'RESOURCE_NOT_FOUND', message: 'There is nothing at GET /metrics.' },
    deducted: 0,
  });
  t.notMatch(r.text, /tollgate_/);
});

t.test('with METRICS_TOKEN the main port needs it as a Bearer token', async (t) => {
  const h = await createTestApp({ pluginDirs: plugins, settings: { metricsToken: 'm-secret-1' } });
  t.teardown(() => h.close());
  const u = await h.user('1');
  await h.client.get('/api/echo?msg=a', { 'X-API-Key': u.key });
  for (const authorization of [undefined, 'Bearer wrong', 'Bearer m-secret-1x', 'm-secret-1']) {
    const r = await h.client.get('/metrics', authorization ? { authorization } : {});
    t.equal(r.status, 401, `${authorization ?? 'no header'}: 401`);
    t.equal(r.body.error.code, 'UNAUTHORIZED');
    t.equal(r.headers['www-authenticate'], 'Bearer realm="metrics"');
    t.notMatch(r.text, /METRICS_TOKEN/, 'no operator variable names in a public answer');
  }
  const ok = await h.client.get('/metrics', { authorization: 'Bearer m-secret-1' });
  t.equal(ok.status, 200);
  t.match(ok.text, /tollgate_charged_micro_total\{operation="echo"\} 10000/);
  const lower = await h.client.get('/metrics', { authorization: 'bearer m-secret-1' });
  t.equal(lower.status, 200, 'the scheme is case-insensitive');
});

t.test('a METRICS_TOKEN shorter than 16 characters stops the start with a clear message', async (t) => {
  const message =
    'METRICS_TOKEN must be at least 16 characters without spaces (it guards the revenue figures on /metrics); generate one with: openssl rand -hex 24';
  t.throws(() => readSettings({ METRICS_TOKEN: 'abc' }), { message });
  t.throws(() => readSettings({ METRICS_TOKEN: '123456789012345' }), { message });
  t.throws(() => readSettings({ METRICS_TOKEN: '1234567890 1234567' }), { message });
  t.equal(readSettings({ METRICS_TOKEN: '1234567890123456' }).metricsToken, '1234567890123456');
  t.equal(readSettings({ METRICS_TOKEN: '' }).metricsToken, null);
});

t.test('METRICS_LISTEN: a separate listener serves /metrics and nothing else', async (t) => {
  const h = await createTestApp({ pluginDirs: plugins });
  t.teardown(() => h.close());
  nock.enableNetConnect((host) => host.startsWith('127.0.0.1'));
  const server = createMetricsServer(h.services);
  const port = await listen(server, 0, '127.0.0.1');
  t.teardown(() => new Promise<void>((r) => server.close(() => r())));
  const get = (path: string) =>
    new Promise<{ status: number; type: string; text: string }>((res, rej) => {
      request({ host: '127.0.0.1', port, path, agent: false }, (m) => {
        let text = '';
        m.on('data', (c: Buffer) => (text += c.toString()));
        m.on('end', () => res({ status: m.statusCode ?? 0, type: String(m.headers['content-type']), text }));
      })
        .on('error', rej)
        .end();
    });
  const metrics = await get('/metrics');
  t.equal(metrics.status, 200);
  t.equal(metrics.type, 'text/plain; version=0.0.4; charset=utf-8');
  t.match(metrics.text, /tollgate_uptime_seconds \d+/);
  const other = await get('/api/echo?msg=a');
  t.equal(other.status, 404);
  t.match(JSON.parse(other.text), { success: false, error: { code: 'RESOURCE_NOT_FOUND' } });
});
