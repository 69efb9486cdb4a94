// /metrics through prom-client. Every metric has HELP and TYPE; calls are timed in seconds with
// operation/outcome/code/cache labels; money charged is counted in micro-TOKEN; the runtime's own metrics (event
// loop, heap, GC) are there. The access rules (METRICS_TOKEN, METRICS_LISTEN) are in test/security/edge-metrics.

import { resolve } from 'node:path';
import nock from 'nock';
import t from 'tap';
import { createMetrics } from '../../core/kernel/metrics.js';
import { createTestApp } from '../helpers/create-test-app.js';
import { parseExposition } from './exposition.js';

nock.disableNetConnect();

t.test('calls are counted by operation, outcome, code and cache; charged money in micro-TOKEN', async (t) => {
  const h = await createTestApp({ pluginDirs: [resolve('test/fixtures/plugins')], settings: { metricsToken: 'm-1' } });
  t.teardown(() => h.close());
  const rich = await h.user('10');
  const poor = await h.user('0');
  const call = async (path: string, key?: string) => (await h.client.get(path, key ? { 'X-API-Key': key } : {})).status;
  t.same(
    [
      await call('/api/echo?msg=a', rich.key),
      await call('/api/echo?msg=b', rich.key),
      await call('/api/echo_cached?msg=c', rich.key),
      await call('/api/echo_cached?msg=c', rich.key),
      await call('/api/echo?msg=d', poor.key),
      await call('/api/throws?mode=crash', rich.key),
    ],
    [200, 200, 200, 200, 402, 500],
  );
  const r = await h.client.get('/metrics', { authorization: 'Bearer m-1' });
  t.equal(r.status, 200);
  t.equal(r.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8');
  const m = parseExposition(r.text);
  const count = (labels: string) => m.samples.get(`tollgate_call_duration_seconds_count{${labels}}`);
  t.equal(count('operation="echo",outcome="success",code="OK",cache="miss"'), 2);
  t.equal(count('operation="echo_cached",outcome="success",code="OK",cache="miss"'), 1);
  t.equal(count('operation="echo_cached",outcome="success",code="OK",cache="hit"'), 1);
  t.equal(count('operation="echo",outcome="denied",code="INSUFFICIENT_BALANCE",cache="miss"'), 1);
  t.equal(count('operation="throws",outcome="failed",code="INTERNAL",cache="miss"'), 1);
  t.equal(
    m.samples.get(
      'tollgate_call_duration_seconds_bucket{le="+Inf",operation="echo",outcome="success",code="OK",cache="miss"}',
    ),
    2,
  );
  const sum = m.samples.get(
    'tollgate_call_duration_seconds_sum{operation="echo",outcome="success",code="OK",cache="miss"}',
  )!;
  t.ok(sum > 0 && sum < 30, `durations are in seconds (sum ${sum})`);
  t.equal(m.samples.get('tollgate_charged_micro_total{operation="echo"}'), 20_000, '2 x 0.01 TOKEN');
  t.equal(
    m.samples.get('tollgate_charged_micro_total{operation="echo_cached"}'),
    20_000,
    'the cache hit is charged without a plan',
  );
  t.equal(m.samples.get('tollgate_charged_calls_total{operation="echo"}'), 2);
  t.equal(
    m.samples.get('tollgate_charged_micro_total{operation="throws"}'),
    undefined,
    'a failed call charges nothing',
  );
  t.match(m.help.get('tollgate_charged_micro_total'), /micro-TOKEN/);
});

t.test('every metric has HELP and TYPE; runtime metrics are there; no millisecond names left', async (t) => {
  const metrics = createMetrics();
  metrics.observeCall('echo', 200, 'OK', false, 0.003, 10_000);
  const m = parseExposition(await metrics.text());
  const names = [...m.type.keys()];
  t.ok(names.length > 15, `${names.length} metrics`);
  t.same(
    names.filter((n) => !m.help.get(n)),
    [],
    'HELP on everything',
  );
  const families = new Set(names);
  const orphans = [...m.samples.keys()]
    .map((k) => k.split('{')[0]!)
    .filter((s) => !families.has(s) && !families.has(s.replace(/_(bucket|sum|count)$/, '')));
  t.same(orphans, [], 'every sample belongs to a declared family');
  for (const name of [
    'nodejs_eventloop_lag_seconds',
    'nodejs_heap_size_used_bytes',
    'nodejs_gc_duration_seconds',
    'process_cpu_seconds_total',
    'tollgate_uptime_seconds',
  ])
    t.ok(families.has(name), `${name} is exposed`);
  t.equal(m.type.get('tollgate_call_duration_seconds'), 'histogram');
  t.equal(m.type.get('tollgate_charged_micro_total'), 'counter');
  t.same(
    names.filter((n) => /_ms(_|$)/.test(n)),
    [],
  );
  t.equal(
    m.samples.get(
      'tollgate_call_duration_seconds_bucket{le="0.0025",operation="echo",outcome="success",code="OK",cache="miss"}',
    ),
    0,
  );
  t.equal(
    m.samples.get(
      'tollgate_call_duration_seconds_bucket{le="0.005",operation="echo",outcome="success",code="OK",cache="miss"}',
    ),
    1,
  );
});
