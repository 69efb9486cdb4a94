// A manual order on a default install says how to pay and tells the admins: a mail to each admin, an
// `order.pending` webhook to the operator's endpoints, and the badge count of
// GET /console/api/admin/orders/pending-count. Confirming it credits the package and clears the count. The shipped
// operations.yaml `manual_payment.instructions` is a template marked unfinished ("pay to <payee> via <...>"): the
// buyer gets the built-in wording instead, in their language, with the amount and the order number; once the
// operator has written their own text (the mark gone), the buyer gets that.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import t from 'tap';
import { readSettings } from '../../../core/config/env.js';
import { createEndpoint } from '../../../core/notify/webhooks/endpoints.js';
import { admin } from '../../console/support.js';
import { createTestApp } from '../../helpers/create-test-app.js';

const SHIPPED = readFileSync('operations.yaml', 'utf8');

t.test('a manual order: instructions with amount and number, mail + webhook to admins, badge count', async (t) => {
  const settings = readSettings({ PORT: '8080', DATA_DIR: '/tmp/unused' });
  const h = await createTestApp({
    operationsYaml: SHIPPED,
    pluginDirs: [resolve('plugins')],
    settings: { payments: settings.payments, accounts: settings.accounts },
  });
  t.teardown(() => h.close());
  const db = h.services.store.db;
  const boss = await admin(h);
  await createEndpoint(db, {
    userId: null,
    url: 'https://ops.example.com/hook',
    kind: 'standard',
    events: ['order.pending'],
  });
  const email = `buyer-${Date.now()}@example.com`;
  const reg = await h.client.post('/console/api/register', { email, password: 'buyer2026x' });
  const buyer = { authorization: `Bearer ${reg.body.token}` };
  const userId = reg.body.user.id as number;

  const created = await h.client.post(
    '/console/api/orders',
    { kind: 'package', id: 't10' },
    { ...buyer, 'accept-language': 'zh-CN' },
  );
  t.equal(created.status, 201);
  const id = created.body.order.id as number;
  // Not the template's "请向 <收款人> 的 <微信 / 支付宝 / 银行账户> 付款": words a buyer can act on.
  const zh = `订单 ${id} 待支付 ¥10.00：请按与服务方约定的方式付款，并注明订单号 ${id}。管理员确认收款后立即到账；订单在确认或取消前一直有效。`;
  t.match(created.body.order, {
    id,
    status: 'pending',
    provider: 'manual',
    pay_amount: 10,
    currency: 'CNY',
    expires_at: null,
    instructions: zh,
  });
  t.equal(created.body.payment.message, zh);
  const en = await h.client.get(`/console/api/orders/${id}`, { ...buyer, 'accept-language': 'en' });
  t.equal(
    en.body.order.instructions,
    `Order ${id} is waiting for payment of ¥10.00. Pay the operator as agreed and quote order number ${id}; an administrator confirms it and the purchase is credited at once. The order stays open until it is confirmed or cancelled.`,
  );

  const bossRow = await db.selectFrom('users').select('email').where('id', '=', boss.userId).executeTakeFirstOrThrow();
  const mails = await db.selectFrom('mail_outbox').selectAll().where('to_addr', '=', bossRow.email).execute();
  t.equal(mails.length, 1, 'one mail to the admin');
  t.equal(mails[0].subject, '有订单等待确认收款');
  t.match(mails[0].text_body, `账户 ${email} 的订单 ${id}（10 TOKEN，10.00 CNY）选择了人工付款，正在等待收款。`);
  const hooks = await db.selectFrom('webhook_deliveries').selectAll().where('event', '=', 'order.pending').execute();
  t.equal(hooks.length, 1);
  t.match(JSON.parse(hooks[0].payload), {
    type: 'order.pending',
    data: { order_id: id, user_id: userId, email, kind: 'package', item_id: 't10', amount: 10, currency: 'CNY' },
  });

  t.same((await h.client.get('/console/api/admin/orders/pending-count', boss.headers)).body, { count: 1 });
  const denied = await h.client.get('/console/api/admin/orders/pending-count', buyer);
  t.equal(denied.status, 403);
  t.equal(denied.body.error.code, 'FORBIDDEN');

  // Reopening the same purchase reuses the order: no second notice.
  const again = await h.client.post('/console/api/orders', { kind: 'package', id: 't10' }, buyer);
  t.same([again.status, again.body.order.id, again.body.reused], [200, id, true]);
  t.equal((await db.selectFrom('webhook_deliveries').selectAll().execute()).length, 1);

  const ok = await h.client.post(`/console/api/admin/orders/${id}/confirm`, {}, boss.headers);
  t.equal(ok.status, 200);
  t.equal(ok.body.order.instructions, null, 'a paid order has nothing left to do');
  t.same((await h.client.get('/console/api/admin/orders/pending-count', boss.headers)).body, { count: 0 });
  t.same(
    (await h.ledger(userId)).map((r) => [r.amount, r.kind]),
    [
      [1_000_000, 'grant'],
      [10_000_000, 'package'],
    ],
  );
  t.same(await h.balance(userId), { balance: 11_000_000, held: 0 });
  await h.assertReconciled();
});

t.test("the operator's own instructions, once the unfinished mark is gone, are what the buyer reads", async (t) => {
  const edited = SHIPPED.replace(
    / {2}instructions:\n {4}zh: .*\n {4}en: .*\n/,
    '  instructions:\n    zh: "请向 Tollgate 的支付宝 pay@example.com 付款 ¥{amount}，备注订单号 {order}。"\n' +
      '    en: "Pay ¥{amount} to Tollgate by Alipay (pay@example.com), quoting order {order}."\n',
  );
  t.not(edited, SHIPPED, 'the shipped text was replaced');
  const h = await createTestApp({ operationsYaml: edited, pluginDirs: [resolve('plugins')] });
  t.teardown(() => h.close());
  const reg = await h.client.post('/console/api/register', {
    email: `own-${Date.now()}@example.com`,
    password: 'buyer2026x',
  });
  const buyer = { authorization: `Bearer ${reg.body.token}` };
  const created = await h.client.post(
    '/console/api/orders',
    { kind: 'package', id: 't10' },
    { ...buyer, 'accept-language': 'zh-CN' },
  );
  t.equal(created.status, 201);
  const id = created.body.order.id as number;
  t.equal(created.body.order.instructions, `请向 Tollgate 的支付宝 pay@example.com 付款 ¥10.00，备注订单号 ${id}。`);
  const en = await h.client.get(`/console/api/orders/${id}`, { ...buyer, 'accept-language': 'en' });
  t.equal(en.body.order.instructions, `Pay ¥10.00 to Tollgate by Alipay (pay@example.com), quoting order ${id}.`);
});
