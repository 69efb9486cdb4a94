// WeChat Pay v3 Native against a local mock that checks our WECHATPAY2-SHA256-RSA2048 request signatures and
// signs its answers with a generated "WeChat Pay public key" (PUB_KEY_ID_… serial, the post-2024 mode).
// Notifications are encrypted with AES-256-GCM under the APIv3 key and signed over the raw body.

import { createCipheriv, generateKeyPairSync, randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import t from 'tap';
import { privateKeyOf, publicKeyOf, rsaSign, rsaVerify } from '../../../core/billing/payments/rsa-sign.js';
import { sweepPayments } from '../../../core/billing/payments/sweeper.js';
import { settleDeps } from '../../../core/console/api/payment-notify-route.js';
import { admin } from '../../console/support.js';
import type { TestApp } from '../../helpers/create-test-app.js';
import { buyer, type FakeServer, fakeServer, orderRow, outTradeNo, PUBLIC_BASE, paymentsApp } from './support.js';

const keys = () =>
  generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
const merchant = keys();
const platform = keys();
const platformPriv = privateKeyOf(platform.privateKey, 'platform');
const merchantPub = publicKeyOf(merchant.publicKey, 'merchant');
const SERIAL = 'PUB_KEY_ID_0114232134912410000000000000000001';
const APIV3 = 'abcdefghijklmnopqrstuvwxyz012345';
const MCHID = '1900000001';
const APPID = 'wx0000000000000001';

let h: TestApp;
let mock: FakeServer;
let adminHeaders: Record<string, string>;
t.before(async () => {
  mock = await fakeServer();
  h = await paymentsApp([
    {
      id: 'wx',
      kind: 'wxpay',
      mchid: MCHID,
      appid: APPID,
      serial_no: 'MERCHANTSERIAL01',
      private_key: merchant.privateKey,
      apiv3_key: APIV3,
      platform_serial: SERIAL,
      platform_public_key: platform.publicKey,
      base_url: mock.url,
    },
  ]);
  adminHeaders = (await admin(h)).headers;
});
t.afterEach(() => h.assertReconciled());
t.teardown(async () => {
  await h.close();
  await mock.close();
});

function signedHeaders(
  body: string,
  ts = Math.floor(Date.now() / 1000),
  serial = SERIAL,
  key = platformPriv,
): Record<string, string> {
  const nonce = randomBytes(8).toString('hex');
  return {
    'wechatpay-timestamp': String(ts),
    'wechatpay-nonce': nonce,
    'wechatpay-serial': serial,
    'wechatpay-signature': rsaSign(`${ts}\n${nonce}\n${body}\n`, key),
  };
}

function answer(res: ServerResponse, status: number, body: unknown): void {
  const text = body === null ? '' : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', ...(text ? signedHeaders(text) : {}) });
  res.end(text);
}

/** Checks the Authorization header the way WeChat Pay does. */
function authorised(req: { method: string; path: string; headers: Record<string, unknown>; body: string }): boolean {
  const auth = String(req.headers.authorization ?? '');
  const f = Object.fromEntries([...auth.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
  return (
    auth.startsWith('WECHATPAY2-SHA256-RSA2048 ') &&
    f.mchid === MCHID &&
    f.serial_no === 'MERCHANTSERIAL01' &&
    rsaVerify(`${req.method}\n${req.path}\n${f.timestamp}\n${f.nonce_str}\n${req.body}\n`, f.signature, merchantPub)
  );
}

let tradeState: Record<string, string> = {};
function mockApi(): void {
  mock.handler = (req, res) => {
    if (!authorised(req)) return answer(res, 401, { code: 'SIGN_ERROR', message: 'bad signature' });
    if (req.method === 'POST' && req.path === '/v3/pay/transactions/native') {
      const b = JSON.parse(req.body) as { out_trade_no: string };
      return answer(res, 200, { code_url: `weixin://wxpay/bizpayurl?pr=${b.out_trade_no}` });
    }
    const q = /^\/v3\/pay\/transactions\/out-trade-no\/(TG\d+)\?mchid=(\d+)$/.exec(req.path);
    if (q) {
      const st = tradeState[q[1]];
      if (!st) return answer(res, 404, { code: 'ORDER_NOT_EXIST', message: '订单不存在' });
      return answer(res, 200, {
        mchid: MCHID,
        appid: APPID,
        out_trade_no: q[1],
        transaction_id: `42000${q[1].slice(2)}`,
        trade_state: st,
        amount: { total: 1000, currency: 'CNY' },
      });
    }
    if (/\/close$/.test(req.path)) return answer(res, 204, null);
    if (req.path === '/v3/refund/domestic/refunds')
      return answer(res, 200, { refund_id: '5030', status: 'PROCESSING' });
    answer(res, 404, { code: 'NOT_FOUND', message: 'no' });
  };
}

function notification(orderId: number, tx: Record<string, unknown> = {}, key = APIV3): string {
  const plain = JSON.stringify({
    mchid: MCHID,
    appid: APPID,
    out_trade_no: outTradeNo(orderId),
    transaction_id: `42000${orderId}`,
    trade_state: 'SUCCESS',
    amount: { total: 1000, payer_total: 1000, currency: 'CNY' },
    ...tx,
  });
  const nonce = randomBytes(6).toString('hex');
  const cipher = createCipheriv('aes-256-gcm', Buffer.from(key), Buffer.from(nonce));
  cipher.setAAD(Buffer.from('transaction'));
  const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return JSON.stringify({
    id: `EV-${orderId}-${nonce}`,
    create_time: '2026-11-23T12:00:00+08:00',
    resource_type: 'encrypt-resource',
    event_type: 'TRANSACTION.SUCCESS',
    summary: '支付成功',
    resource: {
      original_type: 'transaction',
      algorithm: 'AEAD_AES_256_GCM',
      ciphertext: data.toString('base64'),
      associated_data: 'transaction',
      nonce,
    },
  });
}
const notify = (body: string, headers = signedHeaders(body)) =>
  h.client.request('/pay/notify/wx', {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', ...headers },
  });

t.test(
  'Native order: signed request, verified answer, QR code; an encrypted, signed notification credits once',
  async (t) => {
    mockApi();
    const u = await buyer(h);
    const res = await h.client.post('/console/api/orders', { kind: 'package', id: 'p10', method: 'wx' }, u.headers);
    t.equal(res.status, 201);
    const order = res.body.order;
    t.same(res.body.payment.action, { type: 'qrcode', text: `weixin://wxpay/bizpayurl?pr=${outTradeNo(order.id)}` });
    t.match(res.body.payment.qr_svg, /^<svg/);
    const sent = JSON.parse(mock.requests.at(-1)!.body) as Record<string, unknown>;
    t.match(sent, {
      appid: APPID,
      mchid: MCHID,
      out_trade_no: outTradeNo(order.id),
      notify_url: `${PUBLIC_BASE}/pay/notify/wx`,
      amount: { total: 1000, currency: 'CNY' },
    });
    t.match(sent.time_expire, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/);

    const body = notification(order.id);
    const first = await notify(body);
    t.same([first.status, first.text], [204, '']);
    t.equal((await h.balance(u.userId)).balance, 10_000_000);
    t.equal((await notify(body)).status, 204, 'a repeat is acknowledged');
    t.equal((await h.ledger(u.userId)).length, 1);
    t.equal((await orderRow(h, order.id)).provider_trade_no, `42000${order.id}`);
  },
);

t.test('stale, re-serialised, wrong-serial, wrong-key and wrong-merchant notifications are refused', async (t) => {
  mockApi();
  const u = await buyer(h);
  const order = (await h.client.post('/console/api/orders', { kind: 'package', id: 'p10', method: 'wx' }, u.headers))
    .body.order;
  const body = notification(order.id);
  const stale = await notify(body, signedHeaders(body, Math.floor(Date.now() / 1000) - 301));
  t.equal(stale.status, 400);
  t.same(stale.body, { code: 'FAIL', message: 'not accepted' });
  const reserialised = JSON.stringify(JSON.parse(body), null, 1);
  t.equal((await notify(reserialised, signedHeaders(body))).status, 400, 'signature covers the exact bytes');
  t.equal((await notify(body, signedHeaders(body, undefined, 'PUB_KEY_ID_OTHER'))).status, 400);
  t.equal(
    (await notify(body, signedHeaders(body, undefined, SERIAL, privateKeyOf(merchant.privateKey, 'm')))).status,
    400,
  );
  t.equal(
    (await notify(notification(order.id, {}, 'ZZZZefghijklmnopqrstuvwxyz012345'))).status,
    400,
    'not encrypted with our APIv3 key',
  );
  t.equal((await notify(notification(order.id, { mchid: '1900000999' }))).status, 400);
  t.equal((await orderRow(h, order.id)).status, 'pending');
  const short = await notify(notification(order.id, { amount: { total: 1, currency: 'CNY' } }));
  t.equal(short.status, 204);
  t.equal((await orderRow(h, order.id)).status, 'amount_mismatch');
  t.same(await h.balance(u.userId), { balance: 0, held: 0 });
});

t.test(
  'sweeper: ORDER_NOT_EXIST is unknown; NOTPAY past expiry is closed upstream then expired; SUCCESS credits',
  async (t) => {
    mockApi();
    const u = await buyer(h);
    const a = (await h.client.post('/console/api/orders', { kind: 'package', id: 'p10', method: 'wx' }, u.headers)).body
      .order;
    await h.client.post(`/console/api/orders/${a.id}/cancel`, {}, u.headers);
    t.ok(
      mock.requests.some((r) => r.path === `/v3/pay/transactions/out-trade-no/${outTradeNo(a.id)}/close`),
      'cancel closes upstream',
    );
    const b = (await h.client.post('/console/api/orders', { kind: 'package', id: 'p10', method: 'wx' }, u.headers)).body
      .order;
    const c = (await h.client.post('/console/api/orders', { kind: 'plan', id: 'basic', method: 'wx' }, u.headers)).body
      .order;
    const past = Date.now() - 3600_000;
    await h.services.store.db
      .updateTable('orders')
      .set({ created_at: past, expires_at: past + 900_000 })
      .where('id', 'in', [b.id, c.id])
      .execute();
    tradeState = {};
    await sweepPayments(settleDeps(h.services));
    t.equal((await orderRow(h, b.id)).status, 'pending', 'not known upstream yet: unknown');
    tradeState = { [outTradeNo(b.id)]: 'NOTPAY', [outTradeNo(c.id)]: 'SUCCESS' };
    await sweepPayments(settleDeps(h.services));
    t.equal((await orderRow(h, b.id)).status, 'expired');
    t.ok(mock.requests.some((r) => r.path === `/v3/pay/transactions/out-trade-no/${outTradeNo(b.id)}/close`));
    t.equal((await orderRow(h, c.id)).status, 'paid', 'the plan (10 CNY = 1000 fen) was paid: found by the query');
    const me = await h.client.get('/console/api/me', u.headers);
    t.equal(me.body.plan.id, 'basic', 'the plan is active');
    t.same(
      (await h.ledger(u.userId)).map((r) => [r.amount, r.kind, r.ref]),
      [[1_000_000, 'plan_grant', `order:${c.id}`]],
    );
  },
);

t.test('admin refund through WeChat Pay; a refused refund gives the TOKEN back', async (t) => {
  mockApi();
  const u = await buyer(h);
  const order = (await h.client.post('/console/api/orders', { kind: 'package', id: 'p10', method: 'wx' }, u.headers))
    .body.order;
  await notify(notification(order.id));
  const part = await h.client.post(
    `/console/api/admin/orders/${order.id}/refund`,
    { amount: '2.50', reason: 'partial' },
    adminHeaders,
  );
  t.equal(part.status, 200);
  t.match(part.body, {
    amount: 2.5,
    tokens: 2.5,
    provider_refunded: true,
    order: { status: 'paid', refunded_tokens: 2.5 },
  });
  const sent = JSON.parse(mock.requests.filter((r) => r.path === '/v3/refund/domestic/refunds').at(-1)!.body) as Record<
    string,
    unknown
  >;
  t.match(sent, {
    out_trade_no: outTradeNo(order.id),
    out_refund_no: part.body.refund_no,
    amount: { refund: 250, total: 1000, currency: 'CNY' },
  });
  t.equal((await h.balance(u.userId)).balance, 7_500_000);

  mock.handler = (_req, res) => answer(res, 400, { code: 'NOT_ENOUGH', message: '余额不足' });
  const refused = await h.client.post(`/console/api/admin/orders/${order.id}/refund`, { reason: 'rest' }, adminHeaders);
  t.equal(refused.status, 502);
  t.equal(refused.body.error.code, 'UPSTREAM_FAILED');
  t.equal((await h.balance(u.userId)).balance, 7_500_000, 'the reserved TOKEN came back');
  t.match(await orderRow(h, order.id), { status: 'paid', refunded_micro: 2_500_000 });
  const refunds = await h.services.store.db
    .selectFrom('order_refunds')
    .select(['status', 'amount_minor'])
    .where('order_id', '=', order.id)
    .orderBy('id')
    .execute();
  t.same(
    refunds.map((r) => [r.status, Number(r.amount_minor)]),
    [
      ['done', 250],
      ['failed', 750],
    ],
  );
});
