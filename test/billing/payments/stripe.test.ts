// Stripe Checkout against a local mock of api.stripe.com (stripe-node's host/port/protocol options) and webhooks
// signed with stripe.webhooks.generateTestHeaderString: paid only on payment_status 'paid', the amount and
// currency from the order snapshot, stale or altered webhooks refused, live/test mix-ups refused, sessions
// expired upstream on cancel, refunds through the PaymentIntent.

import Stripe from 'stripe';
import t from 'tap';
import { admin } from '../../console/support.js';
import type { TestApp } from '../../helpers/create-test-app.js';
import { buyer, type FakeServer, fakeServer, json, orderRow, outTradeNo, PUBLIC_BASE, paymentsApp } from './support.js';

const WHSEC = 'whsec_test_tollgate_secret';
const stripe = new Stripe('sk_test_x');
let h: TestApp;
let api: FakeServer;
let adminHeaders: Record<string, string>;

t.before(async () => {
  api = await fakeServer();
  h = await paymentsApp([
    {
      id: 'stripe',
      kind: 'stripe',
      secret_key: 'sk_test_tollgate',
      webhook_secret: WHSEC,
      currency: 'usd',
      minor_per_token: 14,
      api_host: '127.0.0.1',
      api_port: api.port,
      api_protocol: 'http',
    },
  ]);
  adminHeaders = (await admin(h)).headers;
});
t.afterEach(() => h.assertReconciled());
t.teardown(async () => {
  await h.close();
  await api.close();
});

let sessions = 0;
function mockSessions(): void {
  api.handler = (req, res) => {
    if (req.method === 'POST' && req.path === '/v1/checkout/sessions') {
      const form = new URLSearchParams(req.body);
      const id = `cs_test_${++sessions}`;
      return json(res, 200, {
        id,
        object: 'checkout.session',
        url: `https://checkout.stripe.com/c/pay/${id}`,
        amount_total: Number(form.get('line_items[0][price_data][unit_amount]')),
        currency: form.get('line_items[0][price_data][currency]'),
        client_reference_id: form.get('client_reference_id'),
        metadata: { out_trade_no: form.get('metadata[out_trade_no]') },
        status: 'open',
        payment_status: 'unpaid',
      });
    }
    const expire = /^\/v1\/checkout\/sessions\/(cs_test_\d+)\/expire$/.exec(req.path);
    if (expire)
      return json(res, 200, { id: expire[1], object: 'checkout.session', status: 'expired', payment_status: 'unpaid' });
    if (req.path === '/v1/refunds') return json(res, 200, { id: 're_1', object: 'refund', status: 'succeeded' });
    json(res, 404, { error: { type: 'invalid_request_error', message: 'No such route' } });
  };
}

function event(type: string, orderId: number, over: Record<string, unknown> = {}, livemode = false): string {
  return JSON.stringify({
    id: `evt_${type}_${orderId}_${Math.random().toString(36).slice(2, 8)}`,
    object: 'event',
    type,
    livemode,
    data: {
      object: {
        id: `cs_test_x${orderId}`,
        object: 'checkout.session',
        client_reference_id: outTradeNo(orderId),
        metadata: { out_trade_no: outTradeNo(orderId) },
        amount_total: 140,
        currency: 'usd',
        payment_status: 'paid',
        status: 'complete',
        payment_intent: `pi_${orderId}`,
        ...over,
      },
    },
  });
}

const webhook = (payload: string, header = stripe.webhooks.generateTestHeaderString({ payload, secret: WHSEC })) =>
  h.client.request('/pay/notify/stripe', {
    method: 'POST',
    body: payload,
    headers: { 'content-type': 'application/json', 'stripe-signature': header },
  });

t.test(
  'a Checkout Session from the snapshot (price_data, idempotency key, expiry); completed+paid credits once',
  async (t) => {
    mockSessions();
    const u = await buyer(h);
    const res = await h.client.post('/console/api/orders', { kind: 'package', id: 'p10', method: 'stripe' }, u.headers);
    t.equal(res.status, 201);
    const order = res.body.order;
    t.match(order, { currency: 'USD', pay_amount: 1.4, instance: 'stripe', method: 'card' });
    t.same(res.body.payment.action, { type: 'redirect', url: 'https://checkout.stripe.com/c/pay/cs_test_1' });
    const sent = api.requests.find((r) => r.path === '/v1/checkout/sessions');
    t.ok(sent);
    const form = new URLSearchParams(sent!.body);
    t.equal(form.get('mode'), 'payment');
    t.equal(form.get('line_items[0][price_data][unit_amount]'), '140', '10 TOKEN at 14 cents');
    t.equal(form.get('line_items[0][price_data][currency]'), 'usd');
    t.equal(form.get('success_url'), `${PUBLIC_BASE}/console/billing/orders/${order.id}`);
    const expiresAt = Number(form.get('expires_at'));
    t.ok(Math.abs(expiresAt - (Date.now() / 1000 + 30 * 60)) < 60, 'Stripe sessions last at least 30 minutes');
    t.equal(sent!.headers['idempotency-key'], `order-${outTradeNo(order.id)}`);
    t.equal((await orderRow(h, order.id)).provider_ref, 'cs_test_1');

    // completed but unpaid (a delayed method): not credited yet.
    const unpaid = await webhook(event('checkout.session.completed', order.id, { payment_status: 'unpaid' }));
    t.equal(unpaid.status, 200);
    t.equal((await orderRow(h, order.id)).status, 'pending');
    const paid = await webhook(event('checkout.session.async_payment_succeeded', order.id));
    t.same([paid.status, paid.body], [200, { received: true }]);
    t.equal((await h.balance(u.userId)).balance, 10_000_000);
    const again = await webhook(event('checkout.session.completed', order.id));
    t.equal(again.status, 200, 'the repeat (new event id, same order) is a no-op');
    t.equal((await h.ledger(u.userId)).length, 1);
    t.equal((await orderRow(h, order.id)).provider_trade_no, `pi_${order.id}`);
  },
);

t.test(
  'stale, altered, unsigned and live-mode webhooks are refused; wrong amount or currency never credits',
  async (t) => {
    mockSessions();
    const u = await buyer(h);
    const order = (
      await h.client.post('/console/api/orders', { kind: 'package', id: 'p10', method: 'stripe' }, u.headers)
    ).body.order;
    const payload = event('checkout.session.completed', order.id);
    const stale = await webhook(
      payload,
      stripe.webhooks.generateTestHeaderString({
        payload,
        secret: WHSEC,
        timestamp: Math.floor(Date.now() / 1000) - 600,
      }),
    );
    t.equal(stale.status, 400);
    const altered = await webhook(
      payload.replace('"amount_total":140', '"amount_total":1'),
      stripe.webhooks.generateTestHeaderString({ payload, secret: WHSEC }),
    );
    t.equal(altered.status, 400);
    t.equal((await webhook(payload, '')).status, 400);
    t.equal(
      (await webhook(payload, stripe.webhooks.generateTestHeaderString({ payload, secret: 'whsec_other' }))).status,
      400,
    );
    t.equal(
      (await webhook(event('checkout.session.completed', order.id, {}, true))).status,
      400,
      'a live event for a test key',
    );
    t.equal((await orderRow(h, order.id)).status, 'pending');

    const wrongCurrency = await webhook(event('checkout.session.completed', order.id, { currency: 'eur' }));
    t.equal(wrongCurrency.status, 200);
    t.equal((await orderRow(h, order.id)).status, 'amount_mismatch');
    t.same(await h.balance(u.userId), { balance: 0, held: 0 });

    const other = (
      await h.client.post('/console/api/orders', { kind: 'package', id: 'p10', method: 'stripe' }, u.headers)
    ).body.order;
    await webhook(event('checkout.session.completed', other.id, { amount_total: 1 }));
    t.equal((await orderRow(h, other.id)).status, 'amount_mismatch');
    t.same(await h.balance(u.userId), { balance: 0, held: 0 });
    // Unrelated events are acknowledged and ignored.
    t.equal(
      (
        await webhook(
          JSON.stringify({
            id: 'evt_x',
            object: 'event',
            type: 'customer.created',
            livemode: false,
            data: { object: {} },
          }),
        )
      ).status,
      200,
    );
  },
);

t.test('cancel expires the session upstream; checkout.session.expired expires an open order', async (t) => {
  mockSessions();
  const u = await buyer(h);
  const a = (await h.client.post('/console/api/orders', { kind: 'package', id: 'p10', method: 'stripe' }, u.headers))
    .body.order;
  const ref = (await orderRow(h, a.id)).provider_ref;
  await h.client.post(`/console/api/orders/${a.id}/cancel`, {}, u.headers);
  t.ok(api.requests.some((r) => r.method === 'POST' && r.path === `/v1/checkout/sessions/${ref}/expire`));
  t.equal((await orderRow(h, a.id)).status, 'cancelled');
  const b = (await h.client.post('/console/api/orders', { kind: 'package', id: 'p10', method: 'stripe' }, u.headers))
    .body.order;
  await webhook(event('checkout.session.expired', b.id, { payment_status: 'unpaid', status: 'expired' }));
  t.equal((await orderRow(h, b.id)).status, 'expired');
});

t.test(
  'admin refund goes to Stripe with the PaymentIntent and an idempotency key, and takes the TOKEN back',
  async (t) => {
    mockSessions();
    const u = await buyer(h);
    const order = (
      await h.client.post('/console/api/orders', { kind: 'package', id: 'p10', method: 'stripe' }, u.headers)
    ).body.order;
    await webhook(event('checkout.session.completed', order.id));
    const res = await h.client.post(
      `/console/api/admin/orders/${order.id}/refund`,
      { reason: 'customer asked' },
      adminHeaders,
    );
    t.equal(res.status, 200);
    t.match(res.body, { amount: 1.4, tokens: 10, provider_refunded: true, order: { status: 'refunded' } });
    const sent = api.requests.filter((r) => r.path === '/v1/refunds').at(-1)!;
    const form = new URLSearchParams(sent.body);
    t.same([form.get('payment_intent'), form.get('amount')], [`pi_${order.id}`, '140']);
    t.equal(sent.headers['idempotency-key'], res.body.refund_no);
    t.same(await h.balance(u.userId), { balance: 0, held: 0 });
    t.same(
      (await h.ledger(u.userId)).map((r) => [r.amount, r.kind]),
      [
        [10_000_000, 'package'],
        [-10_000_000, 'refund'],
      ],
    );
  },
);
