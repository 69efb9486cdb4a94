// The payment sweeper (Kill Bill's janitor): notifications get lost (sub2api#2569), so pending orders are
// queried and the answers go through the same settle() as notifications. Past expiry an order is closed
// upstream and marked expired, but only after a definite "not paid": a failed query is unknown and never
// ends an order (sub2api pay#27). Expired orders keep being queried for a day, so a late payment is credited.
import type { OrderRow, PaymentProvider } from '../payment-provider.js';
import { logPayment } from './payment-log.js';
import { sweepStaleRefunds } from './refund-sweep.js';
import { type SettleDeps, settle } from './settle-payment.js';

const LATE_WINDOW_MS = 24 * 3600_000;
/** Give the notification a head start before the first query. */
const FIRST_QUERY_AFTER_MS = 60_000;
const BATCH = 100;

export interface SweepReport {
  queried: number;
  credited: number;
  expired: number;
  unknown: number;
  /** Refund claims left pending by a stopped process, released as `unknown`. */
  refundsReleased: number;
}

/** Query one order and settle the answer; the query is logged like a notification. */
export async function syncOrder(
  deps: SettleDeps,
  provider: PaymentProvider,
  order: OrderRow,
): Promise<{ outcome: string; state: string }> {
  const result = await provider.queryPayment(order);
  const settlement =
    result.state === 'unknown'
      ? null
      : await settle(deps, provider, { ...result, outTradeNo: result.outTradeNo ?? undefined });
  const outcome = settlement?.outcome ?? `unknown: ${result.detail ?? ''}`;
  await logPayment(deps.db, {
    instance: provider.id,
    orderId: Number(order.id),
    source: 'query',
    verified: result.state !== 'unknown',
    state: result.state,
    outcome,
    raw: null,
  });
  return { outcome, state: result.state };
}

export async function sweepPayments(deps: SettleDeps, now = Date.now()): Promise<SweepReport> {
  const report: SweepReport = { queried: 0, credited: 0, expired: 0, unknown: 0, refundsReleased: 0 };
  report.refundsReleased = await sweepStaleRefunds(deps, now);
  const rows = await deps.db
    .selectFrom('orders')
    .selectAll()
    .where((eb) =>
      eb.or([
        eb.and([eb('status', '=', 'pending'), eb('created_at', '<', now - FIRST_QUERY_AFTER_MS)]),
        eb.and([eb('status', '=', 'expired'), eb('expires_at', '>', now - LATE_WINDOW_MS)]),
      ]),
    )
    .where('expires_at', 'is not', null)
    .orderBy('id')
    .limit(BATCH)
    .execute();
  for (const order of rows) {
    const provider = deps.payments.providers.get(order.instance ?? order.provider);
    if (!provider || provider.kind === 'manual') continue;
    report.queried++;
    try {
      const { outcome, state } = await syncOrder(deps, provider, order);
      if (outcome.startsWith('credited')) report.credited++;
      if (state === 'unknown') report.unknown++;
      if (order.status === 'pending' && state === 'pending' && Number(order.expires_at) <= now) {
        if (provider.closePayment) {
          try {
            await provider.closePayment(order);
          } catch (err) {
            // Not closed upstream: it could still be paid, so it stays pending and is tried again next round.
            deps.logger.warn('closing an expired payment failed', {
              order: Number(order.id),
              instance: provider.id,
              reason: (err as Error).message,
            });
            continue;
          }
        }
        const closed = await deps.db
          .updateTable('orders')
          .set({ status: 'expired', closed_at: now })
          .where('id', '=', order.id)
          .where('status', '=', 'pending')
          .executeTakeFirst();
        if (Number(closed.numUpdatedRows) === 1) report.expired++;
      }
    } catch (err) {
      report.unknown++;
      deps.logger.warn('payment sweep of one order failed', {
        order: Number(order.id),
        reason: (err as Error).message,
      });
    }
  }
  return report;
}

/** Runs the sweep every `seconds`; returns the stop function. */
export function startPaymentSweeper(deps: SettleDeps, seconds: number): () => void {
  if (seconds <= 0) return () => undefined;
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    sweepPayments(deps)
      .then((r) => {
        if (r.queried > 0 || r.refundsReleased > 0) deps.logger.info('payment sweep', { ...r });
      })
      .catch((err: unknown) => deps.logger.error('payment sweep failed', { reason: (err as Error).message }))
      .finally(() => {
        running = false;
      });
  }, seconds * 1000);
  timer.unref();
  return () => clearInterval(timer);
}
