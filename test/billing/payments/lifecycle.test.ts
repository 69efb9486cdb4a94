// The payment lifecycle around the providers: configuration errors stop the start, trial credit once per
// account, manual orders with operator instructions, admin confirmation ("补单") of any order, refunds that
// never take a balance below zero and end a refunded plan, the admin payment log and the pending badge,
// and the snapshot: a price edited after the order does not change what it credits.
import t from 'tap';
import { findUserByEmail } from '../../../core/accounts/users.js';
import { parsePaymentsConfig } from '../../../core/billing/payments/config.js';
import { epaySign } from '../../../core/billing/payments/epay.js';
import { createPayments } from '../../../core/billing/payments/provider-registry.js';
import { grantTrial } from '../../../core/billing/payments/trial-credit.js';
import { readAccountSettings } from '../../../core/config/account-env.js';
import { readPaymentSettings } from '../../../core/config/payment-env.js';
import { admin } from '../../console/support.js';
import type { TestApp } from '../../helpers/create-test-app.js';
import { createTestApp } from '../../helpers/create-test-app.js';
import { buyer, orderRow, outTradeNo, paymentsApp } from './support.js';

t.test(
  'configuration: empty secrets, unknown kinds, duplicate ids, missing env vars and PUBLIC_BASE_URL stop the start',
  async (t) => {
    const settings = { ...readPaymentSettings({}), publicBaseUrl: 'https://x.test' };
    const make =
      (list: Array<Record<string, unknown>>, env: NodeJS.ProcessEnv = {}) =>
      () =>
        createPayments(settings, env, parsePaymentsConfig({ payments: list }, env));
    t.throws(
      make([{ id: 'e', kind: 'epay', pid: '1', key: '', gateway: 'https://g' }]),
      /payments\.e\.key is required and must not be empty/,
    );
    t.throws(
      make([{ id: 'e', kind: 'epay', pid: '1', key: '${EPAY_KEY}', gateway: 'https://g' }]),
      /environment variables not set: EPAY_KEY/,
    );
    t.doesNotThrow(
      make([{ id: 'e', kind: 'epay', pid: '1', key: '${EPAY_KEY}', gateway: 'https://g' }], { EPAY_KEY: 'k' }),
    );
    t.throws(
      make([
        { id: 's', kind: 'stripe', secret_key: 'sk_test_1', webhook_secret: '', currency: 'usd', minor_per_token: 14 },
      ]),
      /webhook_secret is required/,
    );
    t.throws(make([{ id: 'x', kind: 'paypal' }]), /unknown kind "paypal"/);
    t.throws(
      make([
        { id: 'a', kind: 'manual' },
        { id: 'a', kind: 'manual' },
      ]),
      /used twice/,
    );
    t.throws(make([{ id: 'Bad Id', kind: 'manual' }]), /id must match/);
    t.throws(
      make([
        {
          id: 'w',
          kind: 'wxpay',
          mchid: '1',
          appid: 'a',
          serial_no: 's',
          private_key: 'nope',
          apiv3_key: 'k',
          platform_serial: 's',
          platform_public_key: 'p',
        },
      ]),
      /private_key is not an RSA private key/,
    );
    t.throws(
      () =>
        createPayments({ ...settings, publicBaseUrl: null }, {}, [
          { id: 'e', kind: 'epay', pid: '1', key: 'k', gateway: 'https://g' },
        ]),
      /PUBLIC_BASE_URL must be set for online payments \(e\)/,
    );
    t.same(
      [...createPayments({ ...settings, publicBaseUrl: null }, {}, []).providers.keys()],
      ['manual'],
      'manual alone needs no URL',
    );
    t.throws(() => readPaymentSettings({ TRIAL_CREDIT: 'lots' }), /TRIAL_CREDIT must be a TOKEN amount/);
    t.throws(() => readPaymentSettings({ PUBLIC_BASE_URL: 'ftp://x' }), /PUBLIC_BASE_URL/);
    t.equal(
      readPaymentSettings({ PUBLIC_BASE_URL: 'https://api.example.com/' }).publicBaseUrl,
      'https://api.example.com',
      'trailing slash dropped (new-api#1687)',
    );
  },
);

t.test('trial credit: sign-up grants TRIAL_CREDIT and TRIAL_PLAN once; the quick start call succeeds', async (t) => {
  const h = await paymentsApp([], {
    trialCreditMicro: 2_000_000,
    trialPlanId: 'counter',
    trialPlanDays: 3,
    publicBaseUrl: null,
  });
  t.teardown(() => h.close());
  const reg = await h.client.post('/console/api/register', {
    email: `trial-${Date.now()}@example.com`,
    password: 'password123',
  });
  t.equal(reg.status, 201);
  const headers = { authorization: `Bearer ${reg.body.token}` };
  const me = await h.client.get('/console/api/me', headers);
  t.equal(me.body.balance, 2);
  t.equal(me.body.plan.id, 'counter');
  t.ok(Math.abs(Date.parse(me.body.plan.ends_at) - (Date.now() + 3 * 86_400_000)) < 60_000);
  const userId = reg.body.user.id as number;
  t.same(
    (await h.ledger(userId)).map((r) => [r.amount, r.kind, r.ref]),
    [[2_000_000, 'grant', `trial:${userId}`]],
  );
  t.equal(
    await grantTrial(h.services.store.db, h.services.registry.current, h.services.settings.payments, userId),
    null,
    'never twice',
  );
  // Signing up again with the same credentials is a login: no second trial.
  const again = await h.client.post('/console/api/register', { email: reg.body.user.email, password: 'password123' });
  t.equal(again.status, 201);
  t.equal((await h.ledger(userId)).length, 1);
  const key = await h.client.post('/console/api/keys', { name: 'first' }, headers);
  const call = await h.client.get('/api/echo?msg=hi', { 'X-API-Key': key.body.secret });
  t.equal(call.status, 200, 'the quick start ends in a result, not 402');
  await h.assertReconciled();
});

t.test('trial credit with REQUIRE_EMAIL_VERIFICATION waits for the verified mailbox, then arrives once', async (t) => {
  const payments = { ...readPaymentSettings({}), trialCreditMicro: 3_000_000 };
  const h = await createTestApp({
    settings: { payments, accounts: readAccountSettings({ REQUIRE_EMAIL_VERIFICATION: 'true' }, 8080) },
  });
  t.teardown(() => h.close());
  const email = `verify-trial-${Date.now()}@example.com`;
  const reg = await h.client.post('/console/api/register', { email, password: 'password123' });
  t.same(reg.body, { verification_required: true, mail_sent: true });
  const userId = Number((await findUserByEmail(h.services.store.db, email))!.id);
  t.same(await h.ledger(userId), [], 'nothing before the mailbox is proven');
  const row = await h.services.store.db
    .selectFrom('mail_outbox')
    .selectAll()
    .where('to_addr', '=', email)
    .orderBy('id', 'desc')
    .executeTakeFirstOrThrow();
  const token = /\/console\/verify\?token=([a-z]{2}_[A-Za-z0-9_-]{43})/.exec(row.text_body)?.[1] ?? '';
  t.same((await h.client.post('/console/api/email/verify', { token })).body, { verified: true });
  t.same(
    (await h.ledger(userId)).map((r) => [r.amount, r.ref]),
    [[3_000_000, `trial:${userId}`]],
  );
  await h.assertReconciled();
});

t.test('manual orders, confirmation of any order, refunds, payment log, badge, snapshot', async (t) => {
  const h: TestApp = await paymentsApp([
    {
      id: 'bank',
      kind: 'manual',
      label: { zh: '银行转账', en: 'Bank transfer' },
      instructions: {
        zh: '转账到 6222 0000，备注 {order}，金额 ¥{amount}',
        en: 'Transfer ¥{amount} to 6222 0000 quoting {order}',
      },
    },
    { id: 'epay', kind: 'epay', pid: '1001', key: 'k', gateway: 'https://epay.invalid' },
  ]);
  t.teardown(() => h.close());
  t.afterEach(() => h.assertReconciled());
  const adminHeaders = (await admin(h)).headers;

  t.test('payment methods list the instances with bilingual labels', async (t) => {
    const u = await buyer(h);
    const res = await h.client.get('/console/api/payment-methods', u.headers);
    t.same(res.body, {
      methods: [
        {
          id: 'bank',
          kind: 'manual',
          methods: ['manual'],
          currency: 'CNY',
          label: { zh: '银行转账', en: 'Bank transfer' },
        },
        {
          id: 'epay',
          kind: 'epay',
          methods: ['alipay', 'wxpay', 'qqpay'],
          currency: 'CNY',
          label: { zh: '在线支付', en: 'Online payment' },
        },
      ],
      default: 'bank',
    });
  });

  t.test(
    'a manual order shows the operator instructions in zh and en; the admin confirms; a plan refund ends the plan',
    async (t) => {
      const u = await buyer(h);
      const res = await h.client.post('/console/api/orders', { kind: 'plan', id: 'basic', method: 'bank' }, u.headers);
      t.equal(res.status, 201);
      const order = res.body.order;
      t.same(res.body.payment.action, {
        type: 'none',
        instructions: {
          zh: `转账到 6222 0000，备注 ${order.id}，金额 ¥10.00`,
          en: `Transfer ¥10.00 to 6222 0000 quoting ${order.id}`,
        },
      });
      t.equal(order.expires_at, null, 'manual orders wait for the admin');
      const badge = await h.client.get('/console/api/admin/payments/summary', adminHeaders);
      t.ok(badge.body.pending >= 1);
      t.match(
        badge.body.instances.find((i: { id: string }) => i.id === 'epay'),
        { notify_url: 'https://pay.tollgate.test/pay/notify/epay', refunds: true },
      );
      const ok = await h.client.post(`/console/api/admin/orders/${order.id}/confirm`, {}, adminHeaders);
      t.equal(ok.status, 200);
      t.match(ok.body, { fulfilled: true, order: { status: 'paid' } });
      t.equal((await h.client.get('/console/api/me', u.headers)).body.plan.id, 'basic');

      const refund = await h.client.post(
        `/console/api/admin/orders/${order.id}/refund`,
        { reason: 'changed mind' },
        adminHeaders,
      );
      t.equal(refund.status, 200);
      t.match(refund.body, { amount: 10, tokens: 1, provider_refunded: false, order: { status: 'refunded' } });
      t.equal((await h.client.get('/console/api/me', u.headers)).body.plan, null, 'plan revoked with a full refund');
      t.same(await h.balance(u.userId), { balance: 0, held: 0 });
      const twice = await h.client.post(
        `/console/api/admin/orders/${order.id}/refund`,
        { reason: 'again' },
        adminHeaders,
      );
      t.equal(twice.status, 409);
      const log = await h.client.get(`/console/api/admin/payments/log?order=${order.id}`, adminHeaders);
      t.same(
        log.body.entries.map((e: { source: string; outcome: string }) => e.source),
        ['admin', 'admin'],
      );
      t.match(log.body.entries[1].outcome, /^credited by admin \d+$/);
    },
  );

  t.test('a refund never takes the balance below zero', async (t) => {
    const u = await buyer(h);
    const order = (
      await h.client.post('/console/api/orders', { kind: 'package', id: 'p10', method: 'bank' }, u.headers)
    ).body.order;
    await h.client.post(`/console/api/admin/orders/${order.id}/confirm`, {}, adminHeaders);
    await h.client.post('/console/api/admin/grants', { email: u.email, amount: -7, reason: 'spent' }, adminHeaders);
    const res = await h.client.post(`/console/api/admin/orders/${order.id}/refund`, { reason: 'x' }, adminHeaders);
    t.equal(res.status, 409);
    t.match(res.body.error.message, /no longer has 10 TOKEN available/);
    t.equal((await h.balance(u.userId)).balance, 3_000_000);
    const part = await h.client.post(
      `/console/api/admin/orders/${order.id}/refund`,
      { reason: 'x', amount: 3 },
      adminHeaders,
    );
    t.equal(part.status, 200);
    t.equal((await h.balance(u.userId)).balance, 0);
    const bad = await h.client.post(
      `/console/api/admin/orders/${order.id}/refund`,
      { reason: 'x', amount: 'ten' },
      adminHeaders,
    );
    t.equal(bad.status, 400);
    const tooMuch = await h.client.post(
      `/console/api/admin/orders/${order.id}/refund`,
      { reason: 'x', amount: 8 },
      adminHeaders,
    );
    t.equal(tooMuch.status, 409);
    t.equal(tooMuch.body.error.message, `At most 7.00 CNY of order ${order.id} can still be refunded.`);
    const user = await buyer(h);
    t.equal(
      (await h.client.post(`/console/api/admin/orders/${order.id}/refund`, { reason: 'x' }, user.headers)).status,
      403,
    );
  });

  t.test(
    'the order keeps its price: a verified payment credits the snapshot even after operations.yaml changes',
    async (t) => {
      const u = await buyer(h);
      const order = (
        await h.client.post('/console/api/orders', { kind: 'package', id: 'p10', method: 'epay' }, u.headers)
      ).body.order;
      await h.services.store.db
        .updateTable('orders')
        .set({ tokens_micro: 12_000_000 })
        .where('id', '=', order.id)
        .execute();
      const f: Record<string, string> = {
        pid: '1001',
        trade_no: 'SNAP1',
        out_trade_no: outTradeNo(order.id),
        type: 'alipay',
        name: '10 TOKEN',
        money: '10.00',
        trade_status: 'TRADE_SUCCESS',
      };
      const res = await h.client.get(
        `/pay/notify/epay?${new URLSearchParams({ ...f, sign: epaySign(f, 'k'), sign_type: 'MD5' }).toString()}`,
      );
      t.equal(res.text, 'success');
      t.equal((await h.balance(u.userId)).balance, 12_000_000, 'the snapshot, not the live catalogue');
      t.equal((await orderRow(h, order.id)).status, 'paid');
      const list = await h.client.get('/console/api/admin/orders?status=paid', adminHeaders);
      t.ok(list.body.orders.some((o: { id: number; instance: string }) => o.id === order.id && o.instance === 'epay'));
    },
  );
});
