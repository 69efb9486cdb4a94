// Requests that prove nothing cost O(1) storage per source and minute: /api calls without a key or with a bad one
// (per address group) and calls refused by a key's rate or concurrency limit (per key) are counted per minute,
// never logged one row each, and still show in usage, admin stats and operation health. Keyless calls past the
// per-address budget are answered 429 with Retry-After. Runs on SQLite, and on PostgreSQL + Redis with
// TOLLGATE_TEST_BACKEND=pg-redis.
import { resolve } from 'node:path';
import t from 'tap';
import { createLogger } from '../../core/kernel/logger.js';
import { createRefusedLog, MAX_SOURCES, OVERFLOW_SOURCE } from '../../core/store/refused-log.js';
import { admin, consoleUser } from '../console/support.js';
import { createTestApp, type TestApp } from '../helpers/create-test-app.js';

const BAD_KEY = `sk_${'x'.repeat(43)}`;

async function counted(h: TestApp) {
  await h.services.refused.log.flush();
  const rows = await h.services.store.db
    .selectFrom('refused_requests')
    .selectAll()
    .orderBy('code')
    .orderBy('source')
    .execute();
  return rows.map((r) => ({
    kind: r.kind,
    source: r.source,
    user_id: r.user_id === null ? null : Number(r.user_id),
    key_id: Number(r.key_id),
    target: r.target,
    code: r.code,
    status: Number(r.status),
    count: Number(r.count),
  }));
}

async function inBatches<T>(n: number, size: number, one: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < n; i += size)
    out.push(...(await Promise.all(Array.from({ length: Math.min(size, n - i) }, (_, j) => one(i + j)))));
  return out;
}

t.test('keyless and bad-key calls: no call-log row, one counted row per address, code and minute', async (t) => {
  const h = await createTestApp({
    pluginDirs: [resolve('test/fixtures/plugins')],
    settings: { trustProxy: { hops: 1 }, refusedBurst: 10_000 },
  });
  t.teardown(() => h.close());
  const before = await h.callLog();
  const answers = await inBatches(600, 50, (i) =>
    h.client.get(
      `/api/echo?msg=${i}`,
      i % 2 === 0
        ? { 'X-Forwarded-For': i % 4 === 0 ? '198.51.100.9' : '2001:db8:1:2::9' }
        : { 'X-API-Key': BAD_KEY, 'X-Forwarded-For': '198.51.100.9' },
    ),
  );
  t.same(
    answers.map((a) => a.status),
    Array.from({ length: 600 }, () => 401),
  );
  t.equal(answers[0].body.error.code, 'MISSING_API_KEY');
  t.equal(answers[1].body.error.code, 'INVALID_API_KEY');
  t.same(await h.callLog(), before, 'not one call-log row');
  const rows = await counted(h);
  // A minute may turn during the run: then each slot has a second row, and the counts still add up.
  t.ok(rows.length >= 3 && rows.length <= 6, `${rows.length} counted rows for 600 refusals`);
  const sum = (code: string, source: string) =>
    rows.filter((r) => r.code === code && r.source === source).reduce((n, r) => n + r.count, 0);
  t.equal(sum('MISSING_API_KEY', '198.51.100.9'), 150);
  t.equal(sum('MISSING_API_KEY', '2001:db8:1:2::/64'), 150, 'an IPv6 sender is counted by its /64');
  t.equal(sum('INVALID_API_KEY', '198.51.100.9'), 300);
  t.match(rows[0], { kind: 'api', user_id: null, key_id: 0, target: '', status: 401 });
  const metrics = await h.services.metrics.text();
  t.match(
    metrics,
    /tollgate_call_duration_seconds_count\{[^}]*code="MISSING_API_KEY"[^}]*\} 300/,
    'counted in the metrics too',
  );
});

t.test('keyless calls past the per-address budget: 429 RATE_LIMITED with Retry-After; keys still work', async (t) => {
  const h = await createTestApp({
    pluginDirs: [resolve('test/fixtures/plugins')],
    settings: { trustProxy: { hops: 1 }, refusedBurst: 5, refusedRatePerSecond: 1 },
  });
  t.teardown(() => h.close());
  const u = await h.user('1');
  const from = (ip: string, key?: string) => ({ 'X-Forwarded-For': ip, ...(key ? { 'X-API-Key': key } : {}) });
  const first = await inBatches(5, 5, () => h.client.get('/api/echo?msg=a', from('203.0.113.5', BAD_KEY)));
  t.same(
    first.map((a) => a.status),
    [401, 401, 401, 401, 401],
  );
  const over = await h.client.get('/api/echo?msg=a', from('203.0.113.5'));
  t.equal(over.status, 429);
  t.equal(over.headers['retry-after'], '1');
  t.match(over.body, {
    success: false,
    error: { code: 'RATE_LIMITED', message: 'Too many requests without a valid API key from this address.' },
    deducted: 0,
    request_id: /^req_/,
  });
  t.equal(over.body.remaining, undefined, 'no key, no balance');
  const zh = await h.client.get('/api/echo?msg=a', { ...from('203.0.113.5'), 'Accept-Language': 'zh-CN' });
  t.equal(zh.status, 429);
  t.match(zh.body.error.message, /^此 API 密钥请求过于频繁/);
  const keyed = await h.client.get('/api/echo?msg=a', from('203.0.113.5', u.key));
  t.equal(keyed.status, 200, 'a valid key from the same address is served');
  const other = await h.client.get('/api/echo?msg=a', from('203.0.113.6'));
  t.equal(other.status, 401, 'another address has its own budget');
  const rows = await counted(h);
  const sum = (code: string, source: string) =>
    rows.filter((r) => r.code === code && r.source === source).reduce((n, r) => n + r.count, 0);
  t.equal(sum('INVALID_API_KEY', '203.0.113.5'), 5);
  t.equal(sum('RATE_LIMITED', '203.0.113.5'), 2);
  t.equal(sum('MISSING_API_KEY', '203.0.113.6'), 1);
  t.equal((await h.callLog(u.userId)).length, 1, 'only the served call has a row');
  await h.assertReconciled();
});

t.test('429s of a keyed caller: counted per key and minute, shown in usage, stats and health', async (t) => {
  const h = await createTestApp({ pluginDirs: [resolve('test/fixtures/plugins')] });
  t.teardown(() => h.close());
  const u = await consoleUser(h, '1', { rate_limit_per_sec: 1, rate_limit_burst: 1 });
  const answers = await inBatches(60, 20, () => h.client.get('/api/echo?msg=a', { 'X-API-Key': u.key }));
  const statuses = answers.map((a) => a.status).sort();
  t.same(statuses, [200, ...Array.from({ length: 59 }, () => 429)]);
  t.ok(answers.every((a) => a.status === 200 || a.headers['retry-after'] === '1'));
  const log = await h.callLog(u.userId);
  t.match(log, [{ status: 200, error_code: null, charged: 10_000 }], 'one row: the charged call');
  t.equal(log.length, 1);
  const rows = await counted(h);
  t.equal(
    rows.reduce((n, r) => n + r.count, 0),
    59,
  );
  t.ok(rows.length <= 2, 'one row a minute');
  t.match(rows[0], { kind: 'api', source: '', user_id: u.userId, key_id: u.keyId, target: 'echo' });
  t.match(rows[0], { code: 'RATE_LIMITED', status: 429 });

  const usage = await h.client.get('/console/api/usage?days=1', u.headers);
  t.equal(usage.status, 200);
  t.same(usage.body.by_operation, [{ operation: 'echo', calls: 60, successes: 1, charged: 0.01 }]);
  t.equal(usage.body.by_day[0].calls, 60);
  const byKey = await h.client.get(`/console/api/usage?days=1&key_id=${u.keyId}`, u.headers);
  t.equal(byKey.body.by_day[0].calls, 60, "the key's own share");
  const a = await admin(h);
  await h.client.get('/api/echo?msg=a'); // one keyless refusal: no operation known
  const stats = await h.client.get('/console/api/admin/stats?days=1', a.headers);
  t.equal(stats.status, 200);
  t.equal(stats.body.totals.calls, 61);
  t.equal(stats.body.totals.successes, 1);
  t.same(stats.body.days[0].top_operations, [
    { operation: 'echo', calls: 60, revenue: 0.01 },
    { operation: null, calls: 1, revenue: 0 },
  ]);
  const health = await h.client.get('/console/api/admin/operation-health?hours=1', a.headers);
  t.match(health.body.operations, [{ operation: 'echo', calls: 60, successes: 1, errors: 59 }]);
  await h.assertReconciled();
});

t.test('a minute holds at most MAX_SOURCES keyless sources; the rest are counted under "*"', async (t) => {
  const h = await createTestApp({ pluginDirs: [resolve('test/fixtures/plugins')] });
  t.teardown(() => h.close());
  const log = createRefusedLog(h.services.store.db, createLogger('error'), { intervalMs: 3_600_000 });
  const at = 1_800_000_000_000; // a fixed minute
  const n = MAX_SOURCES + 500;
  for (let i = 0; i < n; i++)
    for (let j = 0; j < 3; j++)
      log.count(
        {
          kind: 'api',
          source: `10.${i >> 8}.${i & 255}.1`,
          userId: null,
          keyId: null,
          target: null,
          code: 'X',
          status: 401,
        },
        at + j,
      );
  await log.flush();
  // Counted again in a later flush: the same rows grow, no new ones.
  log.count({ kind: 'api', source: '10.0.0.1', userId: null, keyId: null, target: null, code: 'X', status: 401 }, at);
  await log.close();
  const rows = await counted(h);
  t.equal(rows.length, MAX_SOURCES + 1);
  t.equal(
    rows.reduce((s, r) => s + r.count, 0),
    3 * n + 1,
  );
  t.match(
    rows.find((r) => r.source === OVERFLOW_SOURCE),
    { count: 1500 },
  );
  t.match(
    rows.find((r) => r.source === '10.0.0.1'),
    { count: 4 },
  );
});
