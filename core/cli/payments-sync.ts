// tollgate payments sync [--order ID]: query pending (and recently expired) orders at their providers now and
// settle the answers, as the sweeper does every PAYMENT_SWEEP_SECONDS; with --order, just that order.

import { sweepPayments, syncOrder } from '../billing/payments/sweeper.js';
import { settleDeps } from '../console/api/payment-notify-route.js';
import type { Services } from '../services.js';
import type { ParsedArgs } from './args.js';
import { UsageError } from './args.js';

type Print = (line: string) => void;

export async function paymentsSync(s: Services, args: ParsedArgs, print: Print): Promise<number> {
  const deps = settleDeps(s);
  const flag = args.flags.order;
  if (flag === undefined) {
    const r = await sweepPayments(deps);
    const released = r.refundsReleased > 0 ? `, ${r.refundsReleased} interrupted refunds released` : '';
    print(
      `payments sync: ${r.queried} queried, ${r.credited} credited, ${r.expired} expired, ${r.unknown} unknown${released}`,
    );
    return 0;
  }
  if (typeof flag !== 'string' || !/^[1-9]\d{0,15}$/.test(flag)) throw new UsageError('--order needs an order id');
  const order = await s.store.db.selectFrom('orders').selectAll().where('id', '=', Number(flag)).executeTakeFirst();
  if (!order) {
    print(`no order ${flag}`);
    return 1;
  }
  const provider = s.payments.providers.get(order.instance ?? order.provider);
  if (!provider || provider.kind === 'manual') {
    print(`order ${flag} has no online payment to query (${order.instance ?? order.provider})`);
    return 1;
  }
  const r = await syncOrder(deps, provider, order);
  const now = await s.store.db
    .selectFrom('orders')
    .select('status')
    .where('id', '=', order.id)
    .executeTakeFirstOrThrow();
  print(`order ${flag}: provider says ${r.state}; ${r.outcome}; status ${now.status}`);
  return 0;
}
