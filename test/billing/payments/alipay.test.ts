// Alipay with RSA2 keys generated here: the app key signs requests (checked by the fake gateway), the
// "Alipay" key signs responses and notifies (checked by Tollgate). 当面付 precreate -> QR code, 电脑网站支付 ->
// signed redirect, notifies with "%" in values, refund notices never taken as payment, TRADE_NOT_EXIST unknown.

import { generateKeyPairSync } from 'node:crypto';
import t from 'tap';
import { rawObjectAfter } from '../../../core/billing/payments/alipay.js';
import { privateKeyOf, publicKeyOf, rsaSign, rsaVerify, sortedPairs } from '../../../core/billing/payments/rsa-sign.js';
import { sweepPayments } from '../../../core/billing/payments/sweeper.js';
import { settleDeps } from '../../../core/console/api/payment-notify-route.js';
import type { TestApp } from '../../helpers/create-test-app.js';
import { buyer, type FakeServer, fakeServer, json, orderRow, outTradeNo, PUBLIC_BASE, paymentsApp } from './support.js';

const pem = (k: { privateKey: string; publicKey: string }) => k;
const app = pem(
  generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  }),
);
const ali = pem(
  generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  }),
);
const aliPriv = privateKeyOf(ali.privateKey, 'alipay');
const appPub = publicKeyOf(app.publicKey, 'app');
const APP_ID = '2021000000000001';

let h: TestApp;
let gw: FakeServer;
t.before(async () => {
  gw = await fakeServer();
  h = await paymentsApp([
    // Keys as the Alipay console shows them: bare base64 for the public key.
    {
      id: 'alipay',
      kind: 'alipay',
      app_id: APP_ID,
      private_key: app.privateKey,
      alipay_public_key: ali.publicKey.replace(/-----[^-]+-----|\s/g, ''),
      gateway: `${gw.url}/gateway.do`,
      seller_id: '2088000000000001',
    },
  ]);
});
t.afterEach(() => h.assertReconciled());
t.teardown(async () => {
  await h.close();
  await gw.close();
});

/** The fake gateway: checks our request signature, answers a signed `<method>_response`. */
function gateway(answer: (method: string, biz: Record<string, string>) => Record<string, unknown>): void {
  gw.handler = (req, res) => {
    const params = Object.fromEntries(new URLSearchParams(req.body));
    if (!rsaVerify(sortedPairs(params, ['sign']), params.sign, appPub))
      return json(res, 200, { error_response: { code: '40002', msg: 'Invalid Signature' } });
    const key = `${params.method.replaceAll('.', '_')}_response`;
    const inner = JSON.stringify(answer(params.method, JSON.parse(params.biz_content) as Record<string, string>));
    // The raw text is what Alipay signs: Tollgate must verify it without re-serialising.
    res.writeHead(200, { 'content-type': 'application/json;charset=utf-8' });
    res.end(`{"${key}":${inner},"sign":"${rsaSign(inner, aliPriv)}"}`);
  };
}

function notifyBody(orderId: number, over: Record<string, string> = {}): string {
  const f: Record<string, string> = {
    notify_id: `n${orderId}${Math.random()}`,
    notify_time: '2026-11-23 12:00:00',
    notify_type: 'trade_status_sync',
    app_id: APP_ID,
    charset: 'utf-8',
    version: '1.0',
    out_trade_no: outTradeNo(orderId),
    trade_no: `2026112322001${orderId}`,
    trade_status: 'TRADE_SUCCESS',
    total_amount: '10.00',
    seller_id: '2088000000000001',
    subject: '10 TOKEN 100% 纯',
    gmt_payment: '2026-11-23 12:00:00',
    ...over,
  };
  f.sign = rsaSign(sortedPairs(f, ['sign', 'sign_type']), aliPriv);
  f.sign_type = 'RSA2';
  return new URLSearchParams(f).toString();
}
const notify = (body: string) =>
  h.client.request('/pay/notify/alipay', {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
  });

t.test('raw response object extraction keeps the exact text', async (t) => {
  const text = '{"a_response":{"code":"10000","msg":"Success","x":"}{\\"q"},"sign":"s"}';
  t.equal(rawObjectAfter(text, 'a_response'), '{"code":"10000","msg":"Success","x":"}{\\"q"}');
  t.equal(rawObjectAfter(text, 'b_response'), null);
});

t.test(
  '当面付: precreate gives a QR code (rendered as SVG); a notify with % in the subject credits once',
  async (t) => {
    gateway((method, biz) => {
      t.equal(method, 'alipay.trade.precreate');
      t.match(biz, { out_trade_no: /^TG\d{10}$/, total_amount: '10.00', subject: '10 TOKEN', timeout_express: '15m' });
      return {
        code: '10000',
        msg: 'Success',
        out_trade_no: biz.out_trade_no,
        qr_code: `https://qr.alipay.com/bax0${biz.out_trade_no}`,
      };
    });
    const u = await buyer(h);
    const res = await h.client.post(
      '/console/api/orders',
      { kind: 'package', id: 'p10', method: 'alipay', channel: 'qr' },
      u.headers,
    );
    t.equal(res.status, 201);
    const order = res.body.order;
    t.same(res.body.payment.action, { type: 'qrcode', text: `https://qr.alipay.com/bax0${outTradeNo(order.id)}` });
    t.match(res.body.payment.qr_svg, /^<svg[^>]*viewBox/);
    const sent = new URLSearchParams(gw.requests.at(-1)!.body);
    t.equal(sent.get('notify_url'), `${PUBLIC_BASE}/pay/notify/alipay`);
    t.equal(sent.get('sign_type'), 'RSA2');

    const body = notifyBody(order.id);
    const first = await notify(body);
    t.same([first.status, first.text], [200, 'success']);
    t.equal((await h.balance(u.userId)).balance, 10_000_000);
    t.equal((await notify(body)).text, 'success');
    t.equal(
      (await notify(notifyBody(order.id, { trade_status: 'TRADE_FINISHED' }))).text,
      'success',
      'a late FINISHED is a no-op',
    );
    t.equal((await h.ledger(u.userId)).length, 1);
    // A refund notice (TRADE_SUCCESS + refund_fee) is not a payment.
    t.equal(
      (await notify(notifyBody(order.id, { refund_fee: '10.00', gmt_refund: '2026-11-23 13:00:00' }))).text,
      'success',
    );
    t.equal((await h.ledger(u.userId)).length, 1);
  },
);

t.test('电脑网站支付: a redirect to the gateway signed with the app key', async (t) => {
  const u = await buyer(h);
  const res = await h.client.post(
    '/console/api/orders',
    { kind: 'package', id: 'p10', method: 'alipay', channel: 'page' },
    u.headers,
  );
  t.equal(res.body.payment.action.type, 'redirect');
  const url = new URL(res.body.payment.action.url);
  t.equal(`${url.origin}${url.pathname}`, `${gw.url}/gateway.do`);
  const params = Object.fromEntries(url.searchParams);
  t.equal(params.method, 'alipay.trade.page.pay');
  t.equal(params.return_url, `${PUBLIC_BASE}/console/billing/orders/${res.body.order.id}`);
  t.match(JSON.parse(params.biz_content), { product_code: 'FAST_INSTANT_TRADE_PAY', total_amount: '10.00' });
  t.ok(rsaVerify(sortedPairs(params, ['sign']), params.sign, appPub), 'signed over all params but sign');
});

t.test('forged, wrong-app, wrong-seller and tampered notifies fail; wrong amount never credits', async (t) => {
  gateway((_m, biz) => ({
    code: '10000',
    msg: 'Success',
    out_trade_no: biz.out_trade_no,
    qr_code: 'https://qr.alipay.com/x',
  }));
  const u = await buyer(h);
  const order = (
    await h.client.post(
      '/console/api/orders',
      { kind: 'package', id: 'p10', method: 'alipay', channel: 'qr' },
      u.headers,
    )
  ).body.order;
  const good = notifyBody(order.id);
  t.equal((await notify(good.replace('total_amount=10.00', 'total_amount=0.01'))).text, 'fail', 'tampered');
  t.equal((await notify(notifyBody(order.id, { app_id: '2021999999999999' }))).text, 'fail');
  t.equal((await notify(notifyBody(order.id, { seller_id: '2088999' }))).text, 'fail');
  t.equal(
    (
      await notify(
        good.replace(/sign=[^&]+/, `sign=${encodeURIComponent(rsaSign('x', privateKeyOf(app.privateKey, 'app')))}`),
      )
    ).text,
    'fail',
    'signed with the wrong key',
  );
  t.equal((await orderRow(h, order.id)).status, 'pending');
  t.equal((await notify(notifyBody(order.id, { total_amount: '9.99' }))).text, 'success');
  t.equal((await orderRow(h, order.id)).status, 'amount_mismatch');
  t.same(await h.balance(u.userId), { balance: 0, held: 0 });
});

t.test(
  'sweeper: TRADE_NOT_EXIST (QR not scanned) is unknown and keeps the order; after expiry WAIT_BUYER_PAY closes it upstream',
  async (t) => {
    let exists = false;
    const calls: string[] = [];
    gateway((method, biz) => {
      calls.push(method);
      if (method === 'alipay.trade.precreate')
        return { code: '10000', msg: 'Success', out_trade_no: biz.out_trade_no, qr_code: 'https://qr.alipay.com/y' };
      if (method === 'alipay.trade.query') {
        return exists
          ? {
              code: '10000',
              msg: 'Success',
              trade_status: 'WAIT_BUYER_PAY',
              out_trade_no: biz.out_trade_no,
              total_amount: '10.00',
            }
          : { code: '40004', msg: 'Business Failed', sub_code: 'ACQ.TRADE_NOT_EXIST' };
      }
      return { code: '10000', msg: 'Success' };
    });
    const u = await buyer(h);
    const order = (
      await h.client.post(
        '/console/api/orders',
        { kind: 'package', id: 'p10', method: 'alipay', channel: 'qr' },
        u.headers,
      )
    ).body.order;
    const past = Date.now() - 3600_000;
    await h.services.store.db
      .updateTable('orders')
      .set({ created_at: past, expires_at: past + 900_000 })
      .where('id', '=', order.id)
      .execute();
    await sweepPayments(settleDeps(h.services));
    t.equal((await orderRow(h, order.id)).status, 'pending', 'not-exist is unknown, not unpaid');
    exists = true;
    await sweepPayments(settleDeps(h.services));
    t.equal((await orderRow(h, order.id)).status, 'expired');
    t.ok(calls.includes('alipay.trade.close'), 'closed upstream before expiring');
    // Paid after all (the QR was scanned before the close landed): still credited.
    t.equal((await notify(notifyBody(order.id))).text, 'success');
    t.match(await orderRow(h, order.id), { status: 'paid', late: 1 });
  },
);

t.test('a response with a bad signature is not trusted', async (t) => {
  gw.handler = (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      '{"alipay_trade_precreate_response":{"code":"10000","msg":"Success","qr_code":"https://evil"},"sign":"AAAA"}',
    );
  };
  const u = await buyer(h);
  const res = await h.client.post(
    '/console/api/orders',
    { kind: 'package', id: 'p10', method: 'alipay', channel: 'qr' },
    u.headers,
  );
  t.equal(res.status, 503);
  t.equal(res.body.error.code, 'UNAVAILABLE');
  t.notMatch(res.text, /signature|evil/);
});
