// Order creation and cancel are budgeted per account and per address: a loop of create + cancel by one free
// account stops at the budget with 429 TOO_MANY_REQUESTS and Retry-After, and the provider sees no more
// checkout sessions than the budget allowed. Nothing is charged.
import t from 'tap';
import { createOrder } from '../../../core/billing/orders.js';
import { ORDER_BUDGETS } from '../../../core/console/api/order-limits.js';
import type { TestApp } from '../../helpers/create-test-app.js';
import { buyer, type FakeServer, fakeServer, json, paymentsApp } from './support.js';

let h: TestApp;
let api: FakeServer;

t.before(async () => {
  api = await fakeServer();
  h = await paymentsApp([
    {
      id: 'stripe',
      kind: 'stripe',
      secret_key: 'sk_test_tollgate',
      webhook_secret: 'whsec_test_limits',
      currency: 'usd',
      minor_per_token: 14,
      api_host: '127.0.0.1',
      api_port: api.port,
      api_protocol: 'http',
    },
  ]);
  let n = 0;
  api.handler = (req, res) => {
    if (req.method === 'POST' && req.path === '/v1/checkout/sessions') {
      const id = `cs_test_${++n}`;
      const form = new URLSearchParams(req.body);
      return json(res, 200, {
        id,
        object: 'checkout.session',
        url: `https://checkout.stripe.com/c/pay/${id}`,
        amount_total: 1400,
        currency: 'usd',
        client_reference_id: form.get('client_reference_id'),
        status: 'open',
        payment_status: 'unpaid',
      });
    }
    const expire = /^\/v1\/checkout\/sessions\/(cs_test_\d+)\/expire$/.exec(req.path);
    if (expire) return json(res, 200, { id: expire[1], object: 'checkout.session', status: 'expired' });
    json(res, 404, { error: { type: 'invalid_request_error', message: 'No such route' } });
  };
});
t.afterEach(() => h.assertReconciled());
t.teardown(async () => {
  await h.close();
  await api.close();
});

const sessionsSeen = () => api.requests.filter((r) => r.path === '/v1/checkout/sessions').length;
const expiresSeen = () => api.requests.filter((r) => r.path.endsWith('/expire')).length;

t.test('30 order create + cancel in a row by one account: the budget stops the loop', async (t) => {
  const u = await buyer(h);
  const statuses: number[] = [];
  let refused: Awaited<ReturnType<typeof h.client.post>> | undefined;
  for (let i = 0; i < 30; i++) {
    const made = await h.client.post(
      '/console/api/orders',
      { kind: 'package', id: 'p10', method: 'stripe' },
      u.headers,
    );
    statuses.push(made.status);
    if (made.status !== 201) {
      refused ??= made;
      continue;
    }
    const cancelled = await h.client.post(`/console/api/orders/${made.body.order.id}/cancel`, {}, u.headers);
    t.equal(cancelled.status, 200);
  }
  const burst = ORDER_BUDGETS.create.user.burst;
  t.equal(burst, 10);
  t.same(statuses, [...Array(burst).fill(201), ...Array(30 - burst).fill(429)]);
  t.equal(refused?.body.error.code, 'TOO_MANY_REQUESTS');
  t.match(refused?.body.error.message, /^Too many orders created from this account\. Retry in \d+ seconds\.$/);
  t.equal(refused?.body.success, false);
  t.ok(Number(refused?.headers['retry-after']) >= 1);
  t.equal(sessionsSeen(), burst, 'the provider saw only the allowed checkout sessions');
  t.equal(expiresSeen(), burst);
  const orders = await h.services.store.db
    .selectFrom('orders')
    .select('status')
    .where('user_id', '=', u.userId)
    .execute();
  t.equal(orders.length, burst);
  t.same(await h.balance(u.userId), { balance: 0, held: 0 });
  t.same(await h.ledger(u.userId), [], 'nothing charged or credited');
});

t.test('cancels have their own budget per account', async (t) => {
  const u = await buyer(h);
  // Orders made directly (not through the route and its create budget) so only cancel is counted.
  const results: number[] = [];
  for (let i = 0; i < 12; i++) {
    const { order } = await createOrder(h.services.store.db, h.services.registry.current, h.services.payments, {
      userId: u.userId,
      kind: 'package',
      itemId: 'p10',
      instance: 'manual',
      method: null,
      clientIp: '127.0.0.1',
    });
    const id = Number(order.id);
    results.push((await h.client.post(`/console/api/orders/${id}/cancel`, {}, u.headers)).status);
  }
  t.same(results, [...Array(10).fill(200), 429, 429]);
});

t.test('one address making orders for many accounts is limited too', async (t) => {
  const statuses: number[] = [];
  let refused: Awaited<ReturnType<typeof h.client.post>> | undefined;
  // The first test spent 10 of this address's 30; four fresh accounts with 8 attempts each try 32 more.
  for (let a = 0; a < 4; a++) {
    const u = await buyer(h);
    for (let i = 0; i < 8; i++) {
      const made = await h.client.post(
        '/console/api/orders',
        { kind: 'package', id: 'p10', method: 'manual' },
        u.headers,
      );
      statuses.push(made.status);
      if (made.status === 429) refused ??= made;
    }
  }
  // 20 left of the address's 30 (a token refills every 15 s, so a slow run may let one more through).
  const over = statuses.filter((s) => s === 429).length;
  t.ok(over === 12 || over === 11, `all beyond the address burst refused (${over})`);
  t.match(refused?.body.error.message, /^Too many orders created from this address\./);
});
