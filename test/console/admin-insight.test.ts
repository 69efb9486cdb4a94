// Admin pages by email and search (order number, email part, key prefix), cancelling any pending order,
// revenue from credited orders (plans, packages, money per currency, refunds) and per-operation success rate
// and latency percentiles over a window. Exact statuses, bodies and audit rows.
import t from 'tap';
import { rankOf } from '../../core/billing/operation-health.js';
import { chinaDay } from '../../core/kernel/china-day.js';
import { createTestApp, type TestApp } from '../helpers/create-test-app.js';
import { admin, consoleUser } from './support.js';

let h: TestApp;
let a: Awaited<ReturnType<typeof admin>>;
t.before(async () => {
  h = await createTestApp();
  a = await admin(h);
});
t.afterEach(() => h.assertReconciled());
t.teardown(() => h.close());

type Order = { id: number; user_id: number; user_email: string | null; status: string };
const order = async (headers: Record<string, string>, kind: 'plan' | 'package', id: string): Promise<Order> =>
  (await h.client.post('/console/api/orders', { kind, id }, headers)).body.order;
const adminGet = (path: string) => h.client.get(`/console/api/admin/${path}`, a.headers);
const ids = (orders: Order[]) => orders.map((o) => o.id);

t.test('orders carry the buyer email and are found by order number, email part or key prefix', async (t) => {
  const ann = await consoleUser(h, 0, { email: 'ann.lee@shop.example' });
  const bob = await consoleUser(h, 0, { email: 'bob_100%@mail.example' });
  const o1 = await order(ann.headers, 'package', 'p10');
  const o2 = await order(bob.headers, 'plan', 'basic');

  const all = await adminGet('orders');
  t.equal(all.status, 200);
  t.same(
    all.body.orders.map((o: Order) => [o.id, o.user_id, o.user_email]),
    [
      [o2.id, bob.userId, 'bob_100%@mail.example'],
      [o1.id, ann.userId, 'ann.lee@shop.example'],
    ],
  );

  t.same(ids((await adminGet('orders?q=ANN.LEE')).body.orders), [o1.id], 'email part, any case');
  t.same(ids((await adminGet(`orders?q=%23${o2.id}`)).body.orders), [o2.id], '#number');
  t.same(ids((await adminGet(`orders?q=${o1.id}`)).body.orders), [o1.id], 'bare number');
  t.same(ids((await adminGet(`orders?q=${bob.key.slice(0, 11)}`)).body.orders), [o2.id], 'key prefix as shown');
  t.same(
    ids((await adminGet(`orders?q=${encodeURIComponent(bob.key)}`)).body.orders),
    [o2.id],
    'a whole pasted secret finds its owner',
  );
  t.same(ids((await adminGet('orders?q=100%25')).body.orders), [o2.id], '% is matched literally');
  t.same(ids((await adminGet('orders?q=_')).body.orders), [o2.id], '_ is matched literally');
  t.same((await adminGet('orders?q=nobody')).body.orders, []);
  t.same(ids((await adminGet('orders?q=ann&status=paid')).body.orders), [], 'search and status combine');

  const users = await adminGet(`users?q=${ann.key.slice(0, 11)}`);
  t.equal(users.status, 200);
  t.same(
    users.body.users.map((u: { email: string }) => u.email),
    ['ann.lee@shop.example'],
  );
  t.same(
    (await adminGet(`users?q=${bob.userId}`)).body.users.map((u: { id: number }) => u.id),
    [bob.userId],
  );

  const denied = await h.client.get('/console/api/admin/orders?q=ann', ann.headers);
  t.equal(denied.status, 403);
});

t.test('an admin cancels a pending order once (audited once); paid orders and unknown ones are refused', async (t) => {
  const u = await consoleUser(h, 0, { email: 'cancel.me@example.com' });
  const o = await order(u.headers, 'package', 'p10');
  const cancel = (id: number, headers = a.headers) =>
    h.client.post(`/console/api/admin/orders/${id}/cancel`, {}, headers);

  const first = await cancel(o.id);
  t.equal(first.status, 200);
  t.match(first.body.order, {
    id: o.id,
    user_id: u.userId,
    user_email: 'cancel.me@example.com',
    status: 'cancelled',
    amount: 10,
  });
  const again = await cancel(o.id);
  t.equal(again.status, 200, 'cancelling twice is a quiet no-op');
  t.equal(again.body.order.status, 'cancelled');
  const rows = await h.services.store.db
    .selectFrom('audit_log')
    .selectAll()
    .where('action', '=', 'order.cancel')
    .where('target_id', '=', String(o.id))
    .execute();
  t.same(
    rows.map((r) => [Number(r.actor_id), Number(r.subject_user_id), JSON.parse(r.detail)]),
    [[a.userId, u.userId, { status: 'cancelled' }]],
  );
  t.equal(
    (await h.client.post(`/console/api/admin/orders/${o.id}/confirm`, {}, a.headers)).status,
    409,
    'a cancelled order cannot be confirmed',
  );

  const paid = await order(u.headers, 'package', 'p10');
  await h.client.post(`/console/api/admin/orders/${paid.id}/confirm`, {}, a.headers);
  const refused = await cancel(paid.id);
  t.equal(refused.status, 409);
  t.same(refused.body.error, { code: 'CONFLICT', message: `Order ${paid.id} is paid and cannot be cancelled.` });
  const missing = await cancel(999_999);
  t.equal(missing.status, 404);
  t.same(missing.body.error, { code: 'RESOURCE_NOT_FOUND', message: 'There is no order 999999.' });
  t.equal((await cancel(paid.id, u.headers)).status, 403);
  t.equal((await h.client.post(`/console/api/admin/orders/${paid.id}/cancel`, {})).status, 401);
  t.same(await h.balance(u.userId), { balance: 10_000_000, held: 0 }, 'only the confirmed order was credited');

  // The audit list names both people by email.
  const audit = await adminGet(`audit?user_id=${u.userId}&action=order.cancel`);
  t.match(audit.body.entries, [
    {
      action: 'order.cancel',
      actor_id: a.userId,
      actor_email: /^admin\d+-\d+@example\.com$/,
      subject_user_id: u.userId,
      subject_email: 'cancel.me@example.com',
    },
  ]);
  const byEmail = await adminGet('audit?q=CANCEL.ME&action=order.cancel');
  t.same(
    byEmail.body.entries.map((e: { id: number }) => e.id),
    audit.body.entries.map((e: { id: number }) => e.id),
    'the audit log is searched by email part',
  );
  t.same(
    (await adminGet(`audit?q=${u.key.slice(0, 11)}&action=order.cancel`)).body.entries.length,
    1,
    'or by key prefix',
  );
  t.same((await adminGet('audit?q=nobody-at-all')).body, { entries: [], next_before: null });
});

t.test('revenue counts credited orders by day: plans, packages, money taken and refunded', async (t) => {
  const before = (await adminGet('revenue?days=1')).body;
  const u = await consoleUser(h, 0);
  const pkg = await order(u.headers, 'package', 'p10');
  const plan = await order(u.headers, 'plan', 'basic');
  await order(u.headers, 'plan', 'counter'); // stays pending: not revenue
  await h.client.post(`/console/api/admin/orders/${pkg.id}/confirm`, {}, a.headers);
  await h.client.post(`/console/api/admin/orders/${plan.id}/confirm`, {}, a.headers);
  const refund = await h.client.post(
    `/console/api/admin/orders/${pkg.id}/refund`,
    { amount: '2.50', reason: 'partial', via_provider: false },
    a.headers,
  );
  t.equal(refund.status, 200);

  const res = await adminGet('revenue?days=1');
  t.equal(res.status, 200);
  const today = chinaDay();
  const add = (x: Record<string, number> | undefined, n: number) => Math.round(((x?.CNY ?? 0) + n) * 100) / 100;
  const was = before.days.find((d: { day: string }) => d.day === today) ?? {
    orders: 0,
    plans: 0,
    packages: 0,
    value: 0,
    paid: {},
    refunded: {},
  };
  t.same(res.body.days, [
    {
      day: today,
      orders: was.orders + 2,
      plans: was.plans + 1,
      packages: was.packages + 1,
      value: was.value + 20,
      paid: { CNY: add(was.paid, 20) },
      refunded: { CNY: add(was.refunded, 2.5) },
    },
  ]);
  t.same(res.body.totals, {
    orders: was.orders + 2,
    plans: was.plans + 1,
    packages: was.packages + 1,
    value: was.value + 20,
    paid: { CNY: add(was.paid, 20) },
    refunded: { CNY: add(was.refunded, 2.5) },
  });

  for (const bad of ['days=0', 'days=367', 'days=x']) {
    const r = await adminGet(`revenue?${bad}`);
    t.equal(r.status, 400, bad);
    t.equal(r.body.error.code, 'INVALID_INPUT');
  }
  t.equal((await h.client.get('/console/api/admin/revenue', u.headers)).status, 403);
});

t.test('operation health: success rate and nearest-rank p50/p95/p99 over the window', async (t) => {
  t.same([rankOf(50, 100), rankOf(95, 100), rankOf(99, 100), rankOf(99, 1), rankOf(50, 3)], [49, 94, 98, 0, 1]);
  const db = h.services.store.db;
  const now = Date.now();
  const row = (operation: string, duration_ms: number, error_code: string | null, created_at = now - 60_000) => ({
    request_id: `r-${operation}-${duration_ms}-${created_at}`,
    user_id: null,
    key_id: null,
    operation,
    status: error_code ? 502 : 200,
    error_code,
    charged: 0,
    cached: 0,
    free_reason: null,
    duration_ms,
    plugin_ms: null,
    ip: null,
    created_at,
  });
  // 100 calls of "alpha" lasting 1..100 ms, every tenth failed; 3 of "beta"; old calls outside the window.
  const rows = [
    ...Array.from({ length: 100 }, (_, i) => row('alpha', 100 - i, (i + 1) % 10 === 0 ? 'UPSTREAM_FAILED' : null)),
    row('beta', 7, null),
    row('beta', 3, null),
    row('beta', 900, 'UPSTREAM_TIMEOUT'),
    row('alpha', 99_999, 'UPSTREAM_FAILED', now - 3 * 3600_000),
  ];
  for (let i = 0; i < rows.length; i += 50)
    await db
      .insertInto('call_log')
      .values(rows.slice(i, i + 50))
      .execute();

  const res = await adminGet('operation-health?hours=2');
  t.equal(res.status, 200);
  t.equal(res.body.hours, 2);
  t.match(res.body.since, /^\d{4}-\d\d-\d\dT/);
  t.same(res.body.operations, [
    {
      operation: 'alpha',
      calls: 100,
      successes: 90,
      p50_ms: 50,
      p95_ms: 95,
      p99_ms: 99,
      errors: 10,
      success_rate: 0.9,
    },
    { operation: 'beta', calls: 3, successes: 2, p50_ms: 7, p95_ms: 900, p99_ms: 900, errors: 1, success_rate: 0.6667 },
  ]);
  const wide = (await adminGet('operation-health?hours=4')).body.operations[0];
  t.same([wide.calls, wide.p99_ms, wide.success_rate], [101, 100, 0.8911], 'a wider window takes the old call in');
  t.equal((await adminGet('operation-health?hours=745')).status, 400);
});
