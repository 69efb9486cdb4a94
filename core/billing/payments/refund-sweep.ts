// Refunds left pending by a process that stopped between taking the TOKEN back and hearing the provider's
// answer. The pending row is the order's refund claim, so it must not block the order forever; but whether
// the provider moved the money is unknown. The claim is released as `unknown` and the reservation is kept
// (the TOKEN stay taken back, the amount stays counted as refunded): giving them back could pay the buyer
// twice if the provider did refund. The payment log tells the admin to check with the provider.

import { logPayment } from './payment-log.js';
import type { SettleDeps } from './settle-payment.js';

/** Far longer than a provider call may take (10 s timeout), so a live refund is never swept. */
export const STALE_REFUND_MS = 10 * 60_000;

/**
 * Releases pending refunds older than `staleMs`. At the start of a single process (SQLite) every pending refund
 * is a leftover, so it passes 0 there; processes sharing PostgreSQL keep the age, as another may be mid-refund.
 */
export async function sweepStaleRefunds(
  deps: SettleDeps,
  now = Date.now(),
  staleMs = STALE_REFUND_MS,
): Promise<number> {
  const stale = await deps.db
    .selectFrom('order_refunds')
    .innerJoin('orders', 'orders.id', 'order_refunds.order_id')
    .select([
      'order_refunds.refund_no',
      'order_refunds.order_id',
      'order_refunds.amount_minor',
      'orders.instance',
      'orders.provider',
    ])
    .where('order_refunds.status', '=', 'pending')
    .where('order_refunds.created_at', '<=', now - staleMs)
    .orderBy('order_refunds.id')
    .limit(100)
    .execute();
  let released = 0;
  for (const r of stale) {
    const done = await deps.db
      .updateTable('order_refunds')
      .set({ status: 'unknown' })
      .where('refund_no', '=', r.refund_no)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    if (Number(done.numUpdatedRows) !== 1) continue; // another process released it first
    released++;
    deps.logger.warn('refund interrupted; check it with the provider', {
      order: Number(r.order_id),
      refund: r.refund_no,
    });
    await logPayment(deps.db, {
      instance: r.instance ?? r.provider,
      orderId: Number(r.order_id),
      source: 'admin',
      verified: false,
      state: 'refund_unknown',
      outcome: `refund ${r.refund_no} of ${Number(r.amount_minor)} interrupted; TOKEN kept back, check the provider`,
    });
  }
  return released;
}
