// tollgate payments sync [--order ID]: the sweeper on demand, from the command line.
import t from 'tap';
import { paymentsSync } from '../../../core/cli/payments-sync.js';
import { parseCommandLine as parseArgs } from '../../../core/cli/specs.js';
import type { TestApp } from '../../helpers/create-test-app.js';
import { buyer, type FakeServer, fakeServer, json, orderRow, paymentsApp } from './support.js';

let h: TestApp;
let gw: FakeServer;
t.before(async () => {
  gw = await fakeServer();
  h = await paymentsApp([{ id: 'epay', kind: 'epay', pid: '1001', key: 'k', gateway: gw.url }]);
});
t.teardown(async () => {
  await h.close();
  await gw.close();
});

t.test('--order queries one order and credits it; without it every due order; bad ids are usage errors', async (t) => {
  const u = await buyer(h);
  const order = (await h.client.post('/console/api/orders', { kind: 'package', id: 'p10', method: 'epay' }, u.headers))
    .body.order;
  gw.handler = (req, res) => {
    const q = new URL(req.path, gw.url).searchParams;
    json(res, 200, { code: 1, status: 1, trade_no: 'CLI1', out_trade_no: q.get('out_trade_no'), money: '10.00' });
  };
  const lines: string[] = [];
  t.equal(
    await paymentsSync(h.services, parseArgs(['payments', 'sync', '--order', String(order.id)]), (l) => lines.push(l)),
    0,
  );
  t.same(lines, [`order ${order.id}: provider says paid; credited; status paid`]);
  t.equal((await orderRow(h, order.id)).provider_trade_no, 'CLI1');
  t.equal((await h.balance(u.userId)).balance, 10_000_000);

  lines.length = 0;
  t.equal(await paymentsSync(h.services, parseArgs(['payments', 'sync']), (l) => lines.push(l)), 0);
  t.match(lines[0], /^payments sync: \d+ queried, \d+ credited, \d+ expired, \d+ unknown$/);
  t.equal(
    await paymentsSync(h.services, parseArgs(['payments', 'sync', '--order', '999999']), (l) => lines.push(l)),
    1,
  );
  await t.rejects(
    paymentsSync(h.services, parseArgs(['payments', 'sync', '--order', 'x']), () => undefined),
    /--order needs an order id/,
  );
  await h.assertReconciled();
});
