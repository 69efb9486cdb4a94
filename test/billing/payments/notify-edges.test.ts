// EPay notifications at the edges: a NUL byte (PostgreSQL text cannot hold one) is logged and refused, never a
// 500; an order left in amount_mismatch can be credited by an admin who states what the buyer really paid,
// audited and exactly once.
import t from 'tap';
import { epaySign } from '../../../core/billing/payments/epay.js';
import { admin } from '../../console/support.js';
import type { TestApp } from '../../helpers/create-test-app.js';
import { buyer, orderRow, outTradeNo, paymentLog, paymentsApp } from './support.js';

const KEY = 'tollgate-edges-key';
let h: TestApp;
let adminHeaders: Record<string, string>;
let adminId: number;

t.before(async () => {
  h = await paymentsApp([{ id: 'epay', kind: 'epay', pid: '1001', key: KEY, gateway: 'http://127.0.0.1:9' }]);
  const a = await admin(h);
  adminHeaders = a.headers;
  adminId = a.userId;
});
t.afterEach(() => h.assertReconciled());
t.teardown(() => h.close());

function notifyQuery(orderId: number, money: string): string {
  const f: Record<string, string> = {
    pid: '1001',
    trade_no: `T${orderId}-${money}`,
    out_trade_no: outTradeNo(orderId),
    type: 'alipay',
    name: '10 TOKEN',
    money,
    trade_status: 'TRADE_SUCCESS',
  };
  return new URLSearchParams({ ...f, sign: epaySign(f, KEY), sign_type: 'MD5' }).toString();
}

t.test('a NUL byte in a notification is refused and logged, never a 500', async (t) => {
  const before = (await paymentLog(h)).length;
  const post = await h.client.request('/pay/notify/epay', {
    method: 'POST',
    body: 'pid=1001&out_trade_no=TG1\u0000x&money=1.00&sign=abc',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  t.equal(post.status, 200);
  t.equal(post.text, 'fail');
  const get = await h.client.get('/pay/notify/epay?pid=1001&trade_no=%00&sign=abc');
  t.equal(get.status, 200);
  t.equal(get.text, 'fail');
  const logged = (await paymentLog(h)).slice(before);
  // Refused notifications are sampled once a minute per instance: the second is counted, not logged.
  t.equal(logged.length, 1);
  t.match(logged[0], {
    source: 'notify',
    verified: 0,
    http_method: 'POST',
    raw: 'pid=1001&out_trade_no=TG1\\0x&money=1.00&sign=abc',
  });
  t.match(logged[0].outcome, /^rejected: /);
  t.notOk(logged.some((l) => `${l.raw}${l.outcome}`.includes('\u0000')));
});

t.test('an amount_mismatch order: confirmed only with paid_amount, credited once, audited', async (t) => {
  const u = await buyer(h);
  const order = (await h.client.post('/console/api/orders', { kind: 'package', id: 'p10', method: 'epay' }, u.headers))
    .body.order;
  t.equal((await h.client.get(`/pay/notify/epay?${notifyQuery(order.id, '0.01')}`)).text, 'success');
  t.equal((await orderRow(h, order.id)).status, 'amount_mismatch');
  // A later notification with the right amount still changes nothing: the admin decides.
  t.equal((await h.client.get(`/pay/notify/epay?${notifyQuery(order.id, '10.00')}`)).text, 'success');
  t.equal((await orderRow(h, order.id)).status, 'amount_mismatch');

  const confirm = (body: Record<string, unknown>) =>
    h.client.post(`/console/api/admin/orders/${order.id}/confirm`, body, adminHeaders);
  const bare = await confirm({});
  t.equal(bare.status, 409);
  t.same(bare.body.error, {
    code: 'CONFLICT',
    message: `Order ${order.id} is amount_mismatch (notified 1 CNY, ordered 1000 CNY); to credit it, confirm with paid_amount, the amount the buyer really paid.`,
  });
  for (const bad of ['0', '-1', '1.234', 'ten', true]) {
    const r = await confirm({ paid_amount: bad });
    t.equal(r.status, 400, String(bad));
    t.equal(r.body.error.code, 'INVALID_INPUT');
  }
  t.same(await h.ledger(u.userId), [], 'nothing credited yet');

  const results = await Promise.all([confirm({ paid_amount: '10.00' }), confirm({ paid_amount: '10.00' })]);
  t.same(results.map((r) => r.status).sort(), [200, 409], 'two admins at once: one credits, the other is refused');
  const won = results.find((r) => r.status === 200);
  t.equal(won?.body.fulfilled, true);
  t.match(won?.body.order, { status: 'paid', pay_amount: 10 });
  t.same(
    (await h.ledger(u.userId)).map((r) => [r.amount, r.kind, r.ref]),
    [[10_000_000, 'package', `order:${order.id}`]],
  );
  t.same(await h.balance(u.userId), { balance: 10_000_000, held: 0 });
  t.match(await orderRow(h, order.id), { status: 'paid', amount_minor: 1000, confirmed_by: adminId });

  const again = await confirm({ paid_amount: '10.00' });
  t.equal(again.status, 409, 'paid_amount is for amount_mismatch orders only');
  t.equal((await h.ledger(u.userId)).length, 1);

  const log = (await paymentLog(h, order.id)).filter((l) => l.source === 'admin');
  t.equal(log.length, 1);
  t.equal(log[0].outcome, `credited by admin ${adminId}: amount mismatch accepted, paid 1000 CNY (ordered 1000)`);
  const audited = await h.services.store.db
    .selectFrom('audit_log')
    .selectAll()
    .where('action', '=', 'order.confirm')
    .where('target_id', '=', String(order.id))
    .execute();
  t.equal(audited.length, 1);
  t.same(JSON.parse(String(audited[0].detail)), { outcome: 'credited', paid_amount: 10 });
});
