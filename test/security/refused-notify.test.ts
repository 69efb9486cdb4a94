// Payment notifications that fail verification cost O(1) storage per address and minute: never their body (one
// sample per instance and minute: a 256-byte prefix and the body's SHA-256), a count per address and minute, a
// metric, at most one warning a minute; past the per-address budget they are answered 429 before being read.
// Runs on SQLite, and on PostgreSQL + Redis with TOLLGATE_TEST_BACKEND=pg-redis.
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { stringify } from 'yaml';
import { epaySign } from '../../core/billing/payments/epay.js';
import type { Settings } from '../../core/config/env.js';
import { readPaymentSettings } from '../../core/config/payment-env.js';
import { refusedSample } from '../../core/console/api/refused-notify.js';
import { prunePaymentLog } from '../../core/store/call-log-retention.js';
import { consoleUser } from '../console/support.js';
import { createTestApp, type TestApp } from '../helpers/create-test-app.js';

const KEY = 'tollgate-test-key';

async function app(settings: Partial<Settings>): Promise<TestApp> {
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-refused-'));
  const file = join(dir, 'payments.yaml');
  writeFileSync(
    file,
    stringify({ payments: [{ id: 'epay', kind: 'epay', pid: '1001', key: KEY, gateway: 'http://127.0.0.1:9' }] }),
  );
  const payments = {
    ...readPaymentSettings({}),
    paymentsFile: file,
    publicBaseUrl: 'https://pay.tollgate.test',
    sweepSeconds: 0,
  };
  return createTestApp({ settings: { payments, trustProxy: { hops: 1 }, ...settings } });
}

/** A 16 KiB form body whose signature is wrong. */
function forged(i: number): string {
  const f = { pid: '1001', out_trade_no: `TG${String(i).padStart(10, '0')}`, money: '10.00', trade_status: 'x' };
  return `${new URLSearchParams({ ...f, sign: 'f'.repeat(32), sign_type: 'MD5' }).toString()}&pad=${'A'.repeat(16_384 - 200)}`;
}

const post = (h: TestApp, body: string, ip: string) =>
  h.client.request('/pay/notify/epay', {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'X-Forwarded-For': ip },
  });

async function notifyCounts(h: TestApp) {
  await h.services.refused.log.flush();
  const rows = await h.services.store.db
    .selectFrom('refused_requests')
    .selectAll()
    .where('kind', '=', 'notify')
    .execute();
  const sum = (code: string, source: string) =>
    rows.filter((r) => r.code === code && r.source === source).reduce((n, r) => n + Number(r.count), 0);
  return { rows, sum };
}

t.test('300 forged 16 KiB notifications: "fail" each, one sampled row, counted, one warning', async (t) => {
  const h = await app({ refusedBurst: 10_000 });
  t.teardown(() => h.close());
  const first = forged(0);
  const answers = [];
  for (let i = 0; i < 300; i += 30)
    answers.push(...(await Promise.all(Array.from({ length: 30 }, (_, j) => post(h, forged(i + j), '198.51.100.7')))));
  t.same(new Set(answers.map((a) => `${a.status} ${a.text}`)), new Set(['200 fail']));
  const log = await h.services.store.db.selectFrom('payment_log').selectAll().orderBy('id').execute();
  t.ok(log.length >= 1 && log.length <= 2, `${log.length} payment-log rows for 300 refusals (one per minute)`);
  const row = log[0];
  t.match(row, { instance: 'epay', source: 'notify', verified: 0, client_ip: '198.51.100.7', order_id: null });
  t.match(row.outcome, /^rejected: /);
  const hash = createHash('sha256').update(first).digest('hex');
  t.equal(row.raw, `${first.slice(0, 256)}… [sha256 ${hash}, ${Buffer.byteLength(first)} bytes]`);
  const bytes = log.reduce((n, r) => n + (r.raw?.length ?? 0), 0);
  t.ok(bytes < 1000, `${bytes} bytes of bodies stored for 4.9 MB received`);
  const { rows, sum } = await notifyCounts(h);
  t.equal(sum('REJECTED', '198.51.100.7'), 300);
  t.ok(rows.length <= 2);
  t.match(rows[0], { target: 'epay', status: 200, key_id: 0 });
  const warnings = h.logs.filter((l) => l.message === 'payment notification refused');
  t.ok(warnings.length >= 1 && warnings.length <= 2, 'at most one warning a minute');
  t.match(warnings[0], { level: 'warn', instance: 'epay', address: '198.51.100.7', suppressed_since_last: 0 });
  t.match(
    await h.services.metrics.text(),
    /tollgate_refused_notifications_total\{instance="epay",outcome="rejected"\} 300/,
  );
});

t.test('past the per-address budget: 429 RATE_LIMITED with Retry-After; a signed notify elsewhere works', async (t) => {
  const h = await app({ refusedBurst: 3, refusedRatePerSecond: 1 });
  t.teardown(() => h.close());
  for (let i = 0; i < 3; i++) t.equal((await post(h, forged(i), '203.0.113.9')).text, 'fail');
  const over = await post(h, forged(3), '203.0.113.9');
  t.equal(over.status, 429);
  t.equal(over.headers['retry-after'], '1');
  t.match(over.body, {
    success: false,
    error: { code: 'RATE_LIMITED', message: 'Too many refused payment notifications from this address.' },
    deducted: 0,
    request_id: /^req_/,
  });
  const next = await post(h, forged(4), '203.0.113.9');
  t.equal(next.status, 429, 'refused before its body is read');
  const { sum } = await notifyCounts(h);
  t.equal(sum('REJECTED', '203.0.113.9'), 3);
  t.equal(sum('RATE_LIMITED', '203.0.113.9'), 2);
  t.match(
    await h.services.metrics.text(),
    /tollgate_refused_notifications_total\{instance="epay",outcome="throttled"\} 2/,
  );

  const u = await consoleUser(h, 0);
  const order = await h.client.post(
    '/console/api/orders',
    { kind: 'package', id: 'p10', method: 'epay', channel: 'alipay' },
    u.headers,
  );
  t.equal(order.status, 201);
  const id = order.body.order.id as number;
  const f: Record<string, string> = {
    pid: '1001',
    trade_no: `T${id}X`,
    out_trade_no: `TG${String(id).padStart(10, '0')}`,
    type: 'alipay',
    name: '10 TOKEN',
    money: String(order.body.order.pay_amount.toFixed(2)),
    trade_status: 'TRADE_SUCCESS',
  };
  const signed = new URLSearchParams({ ...f, sign: epaySign(f, KEY), sign_type: 'MD5' }).toString();
  const ok = await post(h, signed, '203.0.113.10');
  t.equal(ok.text, 'success', "the provider's address has its own budget");
  t.equal((await h.balance(u.userId)).balance, 10_000_000);
  const verified = await h.services.store.db
    .selectFrom('payment_log')
    .select('raw')
    .where('verified', '=', 1)
    .executeTakeFirstOrThrow();
  t.equal(verified.raw, signed, 'a verified notification is kept whole');
  await h.assertReconciled();
});

t.test('a sample never holds a NUL and never more than 256 bytes of the body', async (t) => {
  const nul = Buffer.from(`a\0b${'c'.repeat(300)}`);
  const hash = createHash('sha256').update(nul).digest('hex');
  t.equal(refusedSample(nul), `a\\0b${'c'.repeat(253)}… [sha256 ${hash}, 303 bytes]`);
  t.equal(
    refusedSample(Buffer.from('x=1')),
    `x=1 [sha256 ${createHash('sha256').update('x=1').digest('hex')}, 3 bytes]`,
  );
  const h = await app({});
  t.teardown(() => h.close());
  const res = await post(h, `sign=${'0'.repeat(32)}&x=\0`, '192.0.2.1');
  t.equal(res.text, 'fail', 'a NUL in a refused body is stored escaped (PostgreSQL text cannot hold it)');
  const row = await h.services.store.db.selectFrom('payment_log').select('raw').executeTakeFirstOrThrow();
  t.match(row.raw, /x=\\0 \[sha256 /);
});

t.test('PAYMENT_LOG_RETENTION_DAYS: old payment-log rows go, oldest first', async (t) => {
  const h = await app({});
  t.teardown(() => h.close());
  const db = h.services.store.db;
  const now = Date.now();
  const row = (at: number, outcome: string) => ({
    instance: 'epay',
    order_id: null,
    source: 'notify' as const,
    http_method: 'POST',
    client_ip: null,
    verified: 0,
    state: null,
    outcome,
    event_id: null,
    raw: null,
    created_at: at,
  });
  await db
    .insertInto('payment_log')
    .values([row(now - 500 * 86_400_000, 'old1'), row(now - 401 * 86_400_000, 'old2'), row(now, 'new')])
    .execute();
  t.equal(await prunePaymentLog(db, now - 400 * 86_400_000, 1), 2);
  const left = await db.selectFrom('payment_log').select('outcome').execute();
  t.same(
    left.map((r) => r.outcome),
    ['new'],
  );
});
