// Refunds of one order are serialised: a second refund while the provider is still answering the first is
// refused; a refused refund gives back exactly what it took (never a stale snapshot that would erase another
// refund); a refund claim left pending by a stopped process is released by the sweeper as `unknown`.
import t from 'tap';
import { applyEntry } from '../../../core/billing/ledger.js';
import { epaySign } from '../../../core/billing/payments/epay.js';
import { STALE_REFUND_MS, sweepStaleRefunds } from '../../../core/billing/payments/refund-sweep.js';
import { sweepPayments } from '../../../core/billing/payments/sweeper.js';
import { settleDeps } from '../../../core/console/api/payment-notify-route.js';
import { admin } from '../../console/support.js';
import type { TestApp } from '../../helpers/create-test-app.js';
import { buyer, type FakeServer, fakeServer, json, orderRow, outTradeNo, paymentLog, paymentsApp } from './support.js';

const KEY = 'tollgate-refund-key';
let h: TestApp;
let gw: FakeServer;
let adminHeaders: Record<string, string>;

t.before(async () => {
  gw = await fakeServer();
  h = await paymentsApp([{ id: 'epay', kind: 'epay', pid: '1001', key: KEY, gateway: gw.url }]);
  adminHeaders = (await admin(h)).headers;
});
t.afterEach(() => h.assertReconciled());
t.teardown(async () => {
  await h.close();
  await gw.close();
});

/** A paid 10.00 CNY / 10 TOKEN EPay order. */
async function paidOrder() {
  const u = await buyer(h);
  const order = (await h.client.post('/console/api/orders', { kind: 'package', id: 'p10', method: 'epay' }, u.headers))
    .body.order;
  const f: Record<string, string> = {
    pid: '1001',
    trade_no: `T${order.id}`,
    out_trade_no: outTradeNo(order.id),
    type: 'alipay',
    name: '10 TOKEN',
    money: '10.00',
    trade_status: 'TRADE_SUCCESS',
  };
  const notified = await h.client.get(
    `/pay/notify/epay?${new URLSearchParams({ ...f, sign: epaySign(f, KEY), sign_type: 'MD5' })}`,
  );
  t.equal(notified.text, 'success');
  return { u, id: order.id as number };
}

const refund = (id: number, body: Record<string, unknown>) =>
  h.client.post(`/console/api/admin/orders/${id}/refund`, body, adminHeaders);

t.test(
  'two overlapping partial refunds: the second waits its turn; the refused first takes back only its own',
  async (t) => {
    const { u, id } = await paidOrder();
    let calls = 0;
    const refunds: string[] = [];
    // The first refund is held at the provider until the second has been answered, then refused.
    let atProvider!: () => void;
    const firstArrived = new Promise<void>((r) => {
      atProvider = r;
    });
    let release!: () => void;
    const secondDone = new Promise<void>((r) => {
      release = r;
    });
    gw.handler = (req, res) => {
      if (!req.path.startsWith('/api.php?act=refund')) return json(res, 404, {});
      refunds.push(new URLSearchParams(req.body).get('money') ?? '');
      if (++calls === 1) {
        atProvider();
        void secondDone.then(() => json(res, 200, { code: -1, msg: 'busy' }));
      } else json(res, 200, { code: 1, msg: 'ok' });
    };
    const first = refund(id, { amount: '3.00', reason: 'first' });
    await firstArrived;
    const second = await refund(id, { amount: '3.00', reason: 'second' });
    release();
    t.equal(second.status, 409, 'refused while the first is with the provider');
    t.equal(second.body.error.code, 'CONFLICT');
    t.match(second.body.error.message, new RegExp(`^Refund RF${id}-[0-9a-f]{8} of order ${id} is still in progress`));
    const r1 = await first;
    t.equal(r1.status, 502);
    t.equal(r1.body.error.code, 'UPSTREAM_FAILED');
    t.match(await orderRow(h, id), { status: 'paid', refunded_micro: 0 });
    t.same(await h.balance(u.userId), { balance: 10_000_000, held: 0 });

    const rest = await refund(id, { reason: 'the rest' });
    t.equal(rest.status, 200);
    t.match(rest.body, { amount: 10, tokens: 10, provider_refunded: true, order: { status: 'refunded' } });
    t.same(refunds, ['3.00', '10.00'], 'the provider saw the refused 3.00 and the full 10.00 only');
    t.same(await h.balance(u.userId), { balance: 0, held: 0 });
    t.same(
      (await h.ledger(u.userId)).map((r) => [r.amount, r.kind]),
      [
        [10_000_000, 'package'],
        [-3_000_000, 'refund'],
        [3_000_000, 'refund'],
        [-10_000_000, 'refund'],
      ],
    );
    const rows = await h.services.store.db
      .selectFrom('order_refunds')
      .select(['amount_minor', 'tokens_micro', 'status'])
      .where('order_id', '=', id)
      .orderBy('id')
      .execute();
    t.same(
      rows.map((r) => [Number(r.amount_minor), Number(r.tokens_micro), r.status]),
      [
        [300, 3_000_000, 'failed'],
        [1000, 10_000_000, 'done'],
      ],
    );
  },
);

t.test('a refused refund after a successful one subtracts only its own share', async (t) => {
  const { u, id } = await paidOrder();
  let ok = true;
  gw.handler = (_req, res) => json(res, 200, ok ? { code: 1 } : { code: -1, msg: 'no' });
  t.equal((await refund(id, { amount: '2.00', reason: 'a' })).status, 200);
  ok = false;
  t.equal((await refund(id, { amount: '5.00', reason: 'b' })).status, 502);
  t.match(await orderRow(h, id), { status: 'paid', refunded_micro: 2_000_000 });
  t.same(await h.balance(u.userId), { balance: 8_000_000, held: 0 });
});

t.test('a refund claim left pending by a stopped process is released by the sweeper, money kept back', async (t) => {
  const { u, id } = await paidOrder();
  const db = h.services.store.db;
  // What a process stopped between the reserve and the provider's answer leaves behind.
  const started = Date.now() - STALE_REFUND_MS - 1000;
  await db.transaction().execute(async (trx) => {
    await trx.updateTable('orders').set({ refunded_micro: 4_000_000 }).where('id', '=', id).execute();
    await applyEntry(trx, { userId: u.userId, amount: -4_000_000, kind: 'refund', ref: `refund:RF${id}-dead` });
    await trx
      .insertInto('order_refunds')
      .values({
        order_id: id,
        refund_no: `RF${id}-dead`,
        amount_minor: 400,
        tokens_micro: 4_000_000,
        status: 'pending',
        reason: 'x',
        created_by: null,
        created_at: started,
      })
      .execute();
  });
  gw.handler = (_req, res) => json(res, 200, { code: 1 });
  const blocked = await refund(id, { amount: '1.00', reason: 'while pending' });
  t.equal(blocked.status, 409);
  t.equal(blocked.body.error.code, 'CONFLICT');

  const report = await sweepPayments(settleDeps(h.services));
  t.equal(report.refundsReleased, 1);
  const row = await db
    .selectFrom('order_refunds')
    .selectAll()
    .where('refund_no', '=', `RF${id}-dead`)
    .executeTakeFirstOrThrow();
  t.equal(row.status, 'unknown');
  t.match(await orderRow(h, id), { status: 'paid', refunded_micro: 4_000_000 });
  t.same(await h.balance(u.userId), { balance: 6_000_000, held: 0 }, 'the TOKEN stay taken back');
  const log = (await paymentLog(h, id)).at(-1)!;
  t.match(log, { source: 'admin', state: 'refund_unknown' });
  t.match(log.outcome, `refund RF${id}-dead of 400 interrupted`);
  t.equal((await sweepPayments(settleDeps(h.services))).refundsReleased, 0, 'released once');

  const after = await refund(id, { reason: 'the rest' });
  t.equal(after.status, 200);
  t.match(after.body, { amount: 6, tokens: 6, order: { status: 'refunded' } });
  t.same(await h.balance(u.userId), { balance: 0, held: 0 });
});

t.test('a fresh pending refund is not swept', async (t) => {
  const { id } = await paidOrder();
  await h.services.store.db
    .insertInto('order_refunds')
    .values({
      order_id: id,
      refund_no: `RF${id}-live`,
      amount_minor: 100,
      tokens_micro: 0,
      status: 'pending',
      reason: 'x',
      created_by: null,
      created_at: Date.now(),
    })
    .execute();
  t.equal((await sweepPayments(settleDeps(h.services))).refundsReleased, 0);
  // At the start of a single process every pending refund is a leftover: released whatever its age.
  t.equal(await sweepStaleRefunds(settleDeps(h.services), Date.now(), 0), 1);
  t.match(await paymentLog(h, id), [{}, { state: 'refund_unknown' }]);
});
