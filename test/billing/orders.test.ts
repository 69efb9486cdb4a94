// Orders through the manual payment provider: a pending order, an admin's confirmation, and fulfilment
// exactly once (ledger ref order:<id>), however often and however concurrently it is confirmed.
import t from 'tap';
import { admin, consoleUser } from '../console/support.js';
import { createTestApp, type TestApp } from '../helpers/create-test-app.js';

let h: TestApp;
let adminHeaders: Record<string, string>;
t.before(async () => {
  h = await createTestApp();
  adminHeaders = (await admin(h)).headers;
});
t.afterEach(() => h.assertReconciled());
t.teardown(() => h.close());

const confirm = (id: number, headers = adminHeaders) =>
  h.client.post(`/console/api/admin/orders/${id}/confirm`, {}, headers);

t.test('plans and packages come from operations.yaml, prices in TOKEN', async (t) => {
  const plans = await h.client.get('/console/api/plans');
  t.equal(plans.status, 200);
  t.same(plans.body.plans[0], {
    id: 'basic',
    name: 'Basic',
    description: '',
    price: 10,
    duration_days: 30,
    grant_tokens: 1,
    quota: { calls_per_day: 3, concurrency: 2, cache_free: true },
    codes: ['echo', 'echo_cached', 'slow'],
    text: { zh: { name: 'Basic', description: '' }, en: { name: 'Basic', description: '' } },
  });
  t.same(
    plans.body.plans.map((p: { id: string }) => p.id),
    ['basic', 'counter'],
  );
  const packages = await h.client.get('/console/api/packages');
  t.same(packages.body, {
    packages: [
      {
        id: 'p10',
        name: '10 TOKEN',
        description: '',
        price: 10,
        tokens: 10,
        text: { zh: { name: '10 TOKEN', description: '' }, en: { name: '10 TOKEN', description: '' } },
      },
    ],
  });
});

t.test('buying a package: pending order, admin confirms, 10 TOKEN arrive once', async (t) => {
  const u = await consoleUser(h, 0);
  const res = await h.client.post('/console/api/orders', { kind: 'package', id: 'p10' }, u.headers);
  t.equal(res.status, 201);
  const order = res.body.order;
  t.match(order, {
    user_id: u.userId,
    kind: 'package',
    item_id: 'p10',
    item_name: '10 TOKEN',
    amount: 10,
    provider: 'manual',
    status: 'pending',
    paid_at: null,
  });
  t.match(res.body.payment, { provider: 'manual', message: new RegExp(`Order ${order.id} is waiting for payment`) });
  t.same(await h.balance(u.userId), { balance: 0, held: 0 }, 'nothing before payment');

  const first = await confirm(order.id);
  t.equal(first.status, 200);
  t.equal(first.body.fulfilled, true);
  t.match(first.body.order, { id: order.id, status: 'paid', paid_at: /^\d{4}-/ });
  t.same(await h.ledger(u.userId), [
    { amount: 10_000_000, kind: 'package', ref: `order:${order.id}`, balance_after: 10_000_000, operation: null },
  ]);

  const second = await confirm(order.id);
  t.equal(second.status, 200, 'a repeated confirmation succeeds quietly');
  t.equal(second.body.fulfilled, false);
  t.equal(second.body.order.status, 'paid');
  t.equal((await h.ledger(u.userId)).length, 1);
  t.same(await h.balance(u.userId), { balance: 10_000_000, held: 0 });

  const mine = await h.client.get('/console/api/orders', u.headers);
  t.same(
    mine.body.orders.map((o: { id: number; status: string }) => [o.id, o.status]),
    [[order.id, 'paid']],
  );
});

t.test('ten simultaneous confirmations fulfil the order once', async (t) => {
  const u = await consoleUser(h, 0);
  const order = (await h.client.post('/console/api/orders', { kind: 'package', id: 'p10' }, u.headers)).body.order;
  const results = await Promise.all(Array.from({ length: 10 }, () => confirm(order.id)));
  t.same(
    results.map((r) => r.status),
    Array(10).fill(200),
  );
  t.equal(results.filter((r) => r.body.fulfilled === true).length, 1);
  t.equal((await h.ledger(u.userId)).length, 1);
  t.same(await h.balance(u.userId), { balance: 10_000_000, held: 0 });
});

t.test('a plan order grants its tokens and days; a renewal extends the end date', async (t) => {
  const u = await consoleUser(h, 0);
  const o1 = (await h.client.post('/console/api/orders', { kind: 'plan', id: 'basic' }, u.headers)).body.order;
  t.match(o1, { kind: 'plan', item_id: 'basic', amount: 10, status: 'pending' });
  t.equal((await confirm(o1.id)).body.fulfilled, true);
  let me = await h.client.get('/console/api/me', u.headers);
  t.equal(me.body.plan.id, 'basic');
  const end1 = Date.parse(me.body.plan.ends_at);
  t.ok(Math.abs(end1 - (Date.now() + 30 * 86_400_000)) < 60_000, 'ends in 30 days');
  t.same(me.body.quota, { calls_per_day: 3, concurrency: 2, cache_free: true, used_today: 0, remaining_today: 3 });
  const o2 = (await h.client.post('/console/api/orders', { kind: 'plan', id: 'basic' }, u.headers)).body.order;
  await confirm(o2.id);
  me = await h.client.get('/console/api/me', u.headers);
  t.equal(Date.parse(me.body.plan.ends_at), end1 + 30 * 86_400_000, 'renewal adds 30 days to the end');
  t.same(
    (await h.ledger(u.userId)).map((r) => [r.amount, r.kind, r.ref]),
    [
      [1_000_000, 'plan_grant', `order:${o1.id}`],
      [1_000_000, 'plan_grant', `order:${o2.id}`],
    ],
  );
  const subs = await h.services.store.db
    .selectFrom('subscriptions')
    .select(['ref'])
    .where('user_id', '=', u.userId)
    .execute();
  t.same(
    subs.map((s) => s.ref),
    [`order:${o1.id}`, `order:${o2.id}`],
  );
  // The plan is live at once: the quota applies to the next call.
  const call = await h.client.get('/api/echo?msg=plan', { 'X-API-Key': u.key });
  t.match(call.body, { deducted: 0 });
  t.equal(call.headers['x-plan'], 'basic');
});

t.test(
  'order errors: unknown item 404, bad kind 400; confirm: unknown 404, non-admin 403, anonymous 401',
  async (t) => {
    const u = await consoleUser(h, 0);
    const unknown = await h.client.post('/console/api/orders', { kind: 'package', id: 'p999' }, u.headers);
    t.equal(unknown.status, 404);
    t.same(unknown.body.error, {
      code: 'RESOURCE_NOT_FOUND',
      message: 'There is no package "p999". See GET /console/api/packages.',
    });
    const kind = await h.client.post('/console/api/orders', { kind: 'gift', id: 'p10' }, u.headers);
    t.equal(kind.status, 400);
    t.equal(kind.body.error.message, "'kind' must be one of plan, package.");
    t.equal((await confirm(999_999)).status, 404);
    const order = (await h.client.post('/console/api/orders', { kind: 'package', id: 'p10' }, u.headers)).body.order;
    const self = await confirm(order.id, u.headers);
    t.equal(self.status, 403);
    t.same(self.body.error, { code: 'FORBIDDEN', message: 'This needs the admin role.' });
    const anon = await h.client.post(`/console/api/admin/orders/${order.id}/confirm`, {});
    t.equal(anon.status, 401);
    t.same(await h.balance(u.userId), { balance: 0, held: 0 });
    const pending = await h.client.get('/console/api/admin/orders?status=pending', adminHeaders);
    t.ok(pending.body.orders.some((o: { id: number }) => o.id === order.id));
    t.ok(pending.body.orders.every((o: { status: string }) => o.status === 'pending'));
    t.equal((await h.client.get('/console/api/admin/orders?status=weird', adminHeaders)).status, 400);
  },
);

t.test('a cancelled order cannot be confirmed', async (t) => {
  const u = await consoleUser(h, 0);
  const order = (await h.client.post('/console/api/orders', { kind: 'package', id: 'p10' }, u.headers)).body.order;
  await h.services.store.db.updateTable('orders').set({ status: 'cancelled' }).where('id', '=', order.id).execute();
  const res = await confirm(order.id);
  t.equal(res.status, 409);
  t.same(res.body.error, { code: 'CONFLICT', message: `Order ${order.id} was cancelled and cannot be paid.` });
  t.same(await h.balance(u.userId), { balance: 0, held: 0 });
});
