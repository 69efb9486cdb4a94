// EPay (彩虹易支付 V1) end to end through the notify route: the provider's published signature vectors, and every
// abuse case a notify must survive (repeated, reordered, forged, tampered amount, wrong merchant, replayed on
// another order), GET and POST notifies, late payment after expiry and after cancel, the sweeper's queries
// (paid, unpaid -> expired, unknown never ends an order), and idempotent reopening of the pay page.
import t from 'tap';
import { epaySign } from '../../../core/billing/payments/epay.js';
import { sweepPayments } from '../../../core/billing/payments/sweeper.js';
import { settleDeps } from '../../../core/console/api/payment-notify-route.js';
import type { TestApp } from '../../helpers/create-test-app.js';
import {
  buyer,
  type FakeServer,
  fakeServer,
  json,
  orderRow,
  outTradeNo,
  PUBLIC_BASE,
  paymentLog,
  paymentsApp,
} from './support.js';

const KEY = 'tollgate-test-key';
let h: TestApp;
let gw: FakeServer;

t.before(async () => {
  gw = await fakeServer();
  h = await paymentsApp([
    { id: 'epay', kind: 'epay', pid: '1001', key: KEY, gateway: gw.url, methods: ['alipay', 'wxpay'] },
    { id: 'epay2', kind: 'epay', pid: '2002', key: 'second-merchant-key', gateway: gw.url },
  ]);
});
t.afterEach(() => h.assertReconciled());
t.teardown(async () => {
  await h.close();
  await gw.close();
});

t.test('signature vectors from payments.md', async (t) => {
  t.equal(epaySign({ device: 'devicev', money: 'moneyv' }, '1234567'), '3854cc9f022e0fb821bd2e002260245d');
  const notify = {
    pid: '1001',
    trade_no: '2026112312000012345',
    out_trade_no: 'TG20261123000001',
    type: 'alipay',
    name: '10 TOKEN 套餐',
    money: '10.00',
    trade_status: 'TRADE_SUCCESS',
  };
  t.equal(epaySign(notify, KEY), 'fbeb034ce56e61f2406eddea0a996f15');
  t.equal(
    epaySign({ ...notify, sign: 'x', sign_type: 'MD5', param: '' }, KEY),
    'fbeb034ce56e61f2406eddea0a996f15',
    'sign, sign_type and empty values are left out',
  );
});

function notifyFields(orderId: number, over: Record<string, string> = {}, key = KEY): Record<string, string> {
  const f: Record<string, string> = {
    pid: '1001',
    trade_no: `T${orderId}X`,
    out_trade_no: outTradeNo(orderId),
    type: 'alipay',
    name: '10 TOKEN',
    money: '10.00',
    trade_status: 'TRADE_SUCCESS',
    ...over,
  };
  return { ...f, sign: epaySign(f, key), sign_type: 'MD5' };
}

const notifyGet = (fields: Record<string, string>, instance = 'epay') =>
  h.client.get(`/pay/notify/${instance}?${new URLSearchParams(fields).toString()}`);

async function newOrder(u: { headers: Record<string, string> }, channel = 'alipay') {
  const res = await h.client.post(
    '/console/api/orders',
    { kind: 'package', id: 'p10', method: 'epay', channel },
    u.headers,
  );
  return res;
}

t.test(
  'an order gives a signed pay link; the notify credits it once; repeats answer success and change nothing',
  async (t) => {
    const u = await buyer(h);
    const res = await newOrder(u);
    t.equal(res.status, 201);
    const order = res.body.order;
    t.match(order, {
      status: 'pending',
      instance: 'epay',
      method: 'alipay',
      currency: 'CNY',
      pay_amount: 10,
      tokens: 10,
      provider: 'epay',
    });
    const action = res.body.payment.action;
    t.equal(action.type, 'redirect');
    const url = new URL(action.url);
    t.equal(`${url.origin}${url.pathname}`, `${gw.url}/submit.php`);
    const fields = Object.fromEntries(url.searchParams);
    t.same(Object.keys(fields).sort(), [
      'money',
      'name',
      'notify_url',
      'out_trade_no',
      'pid',
      'return_url',
      'sign',
      'sign_type',
      'type',
    ]);
    t.match(fields, {
      pid: '1001',
      type: 'alipay',
      money: '10.00',
      out_trade_no: outTradeNo(order.id),
      notify_url: `${PUBLIC_BASE}/pay/notify/epay`,
      return_url: `${PUBLIC_BASE}/console/billing/orders/${order.id}`,
      sign_type: 'MD5',
    });
    t.equal(fields.sign, epaySign(fields, KEY));
    t.notMatch(action.url, new RegExp(KEY), 'the merchant key never reaches the browser');

    // The return URL only shows the order: visiting it pays nothing.
    const shown = await h.client.get(`/console/api/orders/${order.id}`, u.headers);
    t.equal(shown.body.order.status, 'pending');
    t.same(await h.balance(u.userId), { balance: 0, held: 0 });

    const notice = notifyFields(order.id);
    const first = await notifyGet(notice);
    t.equal(first.status, 200);
    t.equal(first.text, 'success');
    t.equal(first.headers['content-type'], 'text/plain; charset=utf-8');
    t.same(await h.ledger(u.userId), [
      { amount: 10_000_000, kind: 'package', ref: `order:${order.id}`, balance_after: 10_000_000, operation: null },
    ]);
    const row = await orderRow(h, order.id);
    t.match(row, { status: 'paid', provider_trade_no: `T${order.id}X`, late: 0 });
    t.ok(row.credited_at);

    for (let i = 0; i < 3; i++) t.equal((await notifyGet(notice)).text, 'success', 'a repeat is acknowledged');
    const together = await Promise.all(Array.from({ length: 5 }, () => notifyGet(notice)));
    t.same(
      together.map((r) => r.text),
      Array(5).fill('success'),
    );
    t.equal((await h.ledger(u.userId)).length, 1, 'credited once');
    const log = await paymentLog(h, order.id);
    t.equal(log.length, 9, 'every notification is logged raw');
    t.same([...new Set(log.map((l) => l.outcome))].sort(), ['credited', 'duplicate']);
    t.match(log[0], {
      instance: 'epay',
      source: 'notify',
      http_method: 'GET',
      verified: 1,
      state: 'paid',
      outcome: 'credited',
    });
    t.match(log[0].raw, /trade_status=TRADE_SUCCESS/);
    const page = await h.client.get(`/console/api/orders/${order.id}`, u.headers);
    t.equal(page.body.order.status, 'paid');
    t.equal(page.body.payment, null, 'no pay action once paid');
  },
);

t.test('a POSTed form notify is verified over exactly the fields received (extra fork fields included)', async (t) => {
  const u = await buyer(h);
  const order = (await newOrder(u, 'wxpay')).body.order;
  const fields = notifyFields(order.id, { type: 'wxpay', endtime: '2026-11-23 12:00:00' });
  const res = await h.client.request('/pay/notify/epay', {
    method: 'POST',
    body: new URLSearchParams(fields).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  t.equal(res.text, 'success');
  t.equal((await h.balance(u.userId)).balance, 10_000_000);
});

t.test('forged, tampered and wrong-merchant notifies are refused with fail and never credit', async (t) => {
  const u = await buyer(h);
  const order = (await newOrder(u)).body.order;
  const good = notifyFields(order.id);

  const forged = await notifyGet({ ...good, sign: 'f'.repeat(32) });
  t.same([forged.status, forged.text], [200, 'fail']);
  const tampered = await notifyGet({ ...good, money: '0.01' });
  t.equal(tampered.text, 'fail', 'money changed after signing');
  const wrongKey = await notifyGet(notifyFields(order.id, {}, 'not-the-key'));
  t.equal(wrongKey.text, 'fail');
  const wrongPid = await notifyGet(notifyFields(order.id, { pid: '9999' }));
  t.equal(wrongPid.text, 'fail', 'signed with our key but for another merchant id');
  // The second merchant's genuine notice for an order of the first instance proves nothing here.
  const other = { ...notifyFields(order.id, { pid: '2002' }, 'second-merchant-key') };
  const cross = await notifyGet(other, 'epay2');
  t.equal(cross.text, 'fail', 'order is bound to its instance');
  const missing = await notifyGet(notifyFields(999_999));
  t.equal(missing.text, 'fail', 'unknown order');
  t.same(await h.balance(u.userId), { balance: 0, held: 0 });
  t.equal((await orderRow(h, order.id)).status, 'pending');

  // Signed, but for another amount: never credited, shown to the admin, acknowledged (retrying cannot help).
  const underpaid = await notifyGet(notifyFields(order.id, { money: '1.00' }));
  t.equal(underpaid.text, 'success');
  const row = await orderRow(h, order.id);
  t.equal(row.status, 'amount_mismatch');
  t.equal(row.note, 'notified 100 CNY, ordered 1000 CNY');
  t.same(await h.balance(u.userId), { balance: 0, held: 0 });
  const log = await paymentLog(h);
  const refused = log.filter((l) => l.verified === 0 && l.outcome.startsWith('rejected'));
  t.ok(refused.length >= 1, 'refused notifications are sampled in the log (one per instance and minute)');
  const summary = await h.client.get(
    '/console/api/admin/payments/summary',
    (await import('../../console/support.js')).bearer(
      (await (await import('../../console/support.js')).admin(h)).token,
    ),
  );
  t.ok(summary.body.amount_mismatch >= 1);
});

t.test(
  'a notify replayed against another order (same trade number) is refused; reordered pending-after-paid changes nothing',
  async (t) => {
    const u = await buyer(h);
    const a = (await newOrder(u)).body.order;
    await h.client.post(`/console/api/orders/${a.id}/cancel`, {}, u.headers);
    const b = (await newOrder(u)).body.order;
    t.not(a.id, b.id);
    t.equal((await notifyGet(notifyFields(b.id, { trade_no: 'SAME-TRADE' }))).text, 'success');
    // The same gateway trade number on order a: a replay; the unique (instance, trade no) stops it.
    const replay = await notifyGet(notifyFields(a.id, { trade_no: 'SAME-TRADE' }));
    t.equal(replay.text, 'fail');
    t.equal((await orderRow(h, a.id)).status, 'cancelled');
    // A WAIT notice arriving after the paid one: no change.
    const late = await notifyGet(notifyFields(b.id, { trade_no: 'SAME-TRADE', trade_status: 'WAIT_BUYER_PAY' }));
    t.equal(late.text, 'success');
    t.equal((await orderRow(h, b.id)).status, 'paid');
    t.same(await h.ledger(u.userId).then((l) => l.map((r) => r.ref)), [`order:${b.id}`]);
  },
);

t.test('reopening the pay page reuses the open order; cancel then pay again makes a new one', async (t) => {
  const u = await buyer(h);
  const first = await newOrder(u);
  const again = await newOrder(u);
  t.equal(again.status, 200);
  t.equal(again.body.reused, true);
  t.equal(again.body.order.id, first.body.order.id);
  t.same(again.body.payment.action, first.body.payment.action);
  const otherChannel = await newOrder(u, 'wxpay');
  t.equal(otherChannel.status, 201, 'another channel is another order');
  const badChannel = await newOrder(u, 'qqpay');
  t.equal(badChannel.status, 400);
  t.equal(badChannel.body.error.message, 'Payment method "epay" offers alipay, wxpay, not "qqpay".');
  const badMethod = await h.client.post(
    '/console/api/orders',
    { kind: 'package', id: 'p10', method: 'paypal' },
    u.headers,
  );
  t.equal(badMethod.status, 400);

  const cancelled = await h.client.post(`/console/api/orders/${first.body.order.id}/cancel`, {}, u.headers);
  t.equal(cancelled.status, 200);
  t.equal(cancelled.body.order.status, 'cancelled');
  t.equal(
    (await h.client.post(`/console/api/orders/${first.body.order.id}/cancel`, {}, u.headers)).body.order.status,
    'cancelled',
    'cancel is idempotent',
  );
  const someone = await buyer(h);
  t.equal(
    (await h.client.post(`/console/api/orders/${first.body.order.id}/cancel`, {}, someone.headers)).status,
    404,
    "another user's order is not found",
  );
  const fresh = await newOrder(u);
  t.equal(fresh.status, 201);
  t.not(fresh.body.order.id, first.body.order.id);

  // The cancelled order was paid after all (the buyer had the gateway page open): a late payment is credited.
  t.equal((await notifyGet(notifyFields(first.body.order.id))).text, 'success');
  const row = await orderRow(h, first.body.order.id);
  t.match(row, { status: 'paid', late: 1 });
  t.equal((await h.balance(u.userId)).balance, 10_000_000);
  const paidCancel = await h.client.post(`/console/api/orders/${first.body.order.id}/cancel`, {}, u.headers);
  t.equal(paidCancel.status, 409);
  t.equal(paidCancel.body.error.message, `Order ${first.body.order.id} is paid and cannot be cancelled.`);
});

t.test(
  'sweeper: a paid query credits, an unpaid one past expiry expires, an unknown answer never ends an order',
  async (t) => {
    const u = await buyer(h);
    const paid = (await newOrder(u)).body.order;
    const unpaid = (await newOrder(u, 'wxpay')).body.order;
    const db = h.services.store.db;
    const past = Date.now() - 3600_000;
    await db
      .updateTable('orders')
      .set({ created_at: past, expires_at: past + 900_000 })
      .where('id', 'in', [paid.id, unpaid.id])
      .execute();

    const queries: string[] = [];
    let mode: 'html' | 'answer' = 'html';
    gw.handler = (req, res) => {
      const q = new URL(req.path, gw.url).searchParams;
      queries.push(`${q.get('act')}:${q.get('out_trade_no')}`);
      if (q.get('key') !== KEY) return json(res, 200, { code: -1, msg: 'bad key' });
      if (mode === 'html') {
        res.writeHead(502, { 'content-type': 'text/html' });
        return res.end('<html>Bad Gateway</html>');
      }
      const id = Number(q.get('out_trade_no')?.slice(2));
      json(
        res,
        200,
        id === paid.id
          ? { code: 1, status: 1, trade_no: `Q${id}`, out_trade_no: q.get('out_trade_no'), money: '10.00' }
          : { code: 1, status: 0, out_trade_no: q.get('out_trade_no'), money: '10.00' },
      );
    };
    const deps = settleDeps(h.services);
    const r1 = await sweepPayments(deps);
    t.ok(r1.unknown >= 2, 'HTML is unknown');
    t.equal((await orderRow(h, paid.id)).status, 'pending', 'unknown is never unpaid');
    t.equal((await orderRow(h, unpaid.id)).status, 'pending');

    mode = 'answer';
    const r2 = await sweepPayments(deps);
    t.ok(r2.credited >= 1);
    t.match(await orderRow(h, paid.id), { status: 'paid', provider_trade_no: `Q${paid.id}` });
    t.equal((await orderRow(h, unpaid.id)).status, 'expired', 'not paid and past expiry');
    t.ok(queries.includes(`order:${outTradeNo(paid.id)}`));
    t.equal((await h.balance(u.userId)).balance, 10_000_000);

    // A verified payment after expiry is still credited (EPay cannot close an order upstream).
    t.equal((await notifyGet(notifyFields(unpaid.id, { type: 'wxpay' }))).text, 'success');
    t.match(await orderRow(h, unpaid.id), { status: 'paid', late: 1 });
    t.equal((await h.balance(u.userId)).balance, 20_000_000);
    const qlog = (await paymentLog(h, paid.id)).filter((l) => l.source === 'query');
    t.ok(qlog.some((l) => l.outcome.startsWith('unknown')) && qlog.some((l) => l.outcome === 'credited'));
  },
);

t.test('the pay page asks the provider at most every 10 s when the buyer says "I have paid"', async (t) => {
  const u = await buyer(h);
  const order = (await newOrder(u)).body.order;
  let asked = 0;
  gw.handler = (req, res) => {
    asked++;
    const q = new URL(req.path, gw.url).searchParams;
    json(res, 200, {
      code: 1,
      status: 1,
      trade_no: `R${order.id}`,
      out_trade_no: q.get('out_trade_no'),
      money: '10.00',
    });
  };
  const res = await h.client.get(`/console/api/orders/${order.id}?refresh=1`, u.headers);
  t.equal(res.body.order.status, 'paid');
  await h.client.get(`/console/api/orders/${order.id}?refresh=1`, u.headers);
  t.equal(asked, 1);
});

t.test('notify route: unknown instance 404, manual has none, other methods 405, bodies over 64 KiB 413', async (t) => {
  t.equal((await h.client.get('/pay/notify/nope')).status, 404);
  t.equal((await h.client.get('/pay/notify/manual')).status, 404);
  const put = await h.client.request('/pay/notify/epay', { method: 'PUT' });
  t.equal(put.status, 405);
  const big = await h.client.request('/pay/notify/epay', {
    method: 'POST',
    body: 'a='.padEnd(70_000, 'x'),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  t.equal(big.status, 413);
});
