// What an admin does to orders: confirm a manual payment ("补单"), and refund. A refund takes the TOKEN back
// first (never below what the user has available, so never below zero), then asks the provider; if the
// provider refuses, the TOKEN are given back with a reversing ledger row and nothing else changes.
// One refund of an order at a time: a pending refund row is the order's claim, so a second refund while the
// provider is still answering the first is refused, and a release subtracts only what its own reserve added.
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { applyEntry, InsufficientBalanceError } from '../ledger.js';
import { findOrder, OrderError } from '../orders.js';
import type { OrderRow } from '../payment-provider.js';
import { logPayment } from './payment-log.js';
import { creditOrder, type SettleDeps, type Settlement } from './settle-payment.js';

/**
 * An admin's confirmation ("补单"). An order in amount_mismatch (the provider reported another amount) is credited
 * only when the admin states what the buyer really paid (`paidMinor`, kept as the order's amount so refunds
 * cannot exceed it); the conditional status change credits it exactly once.
 */
export async function confirmManually(
  deps: SettleDeps,
  orderId: number,
  adminId: number,
  paidMinor?: number,
): Promise<Settlement> {
  const order = await findOrder(deps.db, orderId);
  if (order.status === 'cancelled')
    throw new OrderError('cancelled', `Order ${orderId} was cancelled and cannot be paid.`);
  if (order.status === 'refunded')
    throw new OrderError('not_pending', `Order ${orderId} is ${order.status}; it cannot be confirmed.`);
  const mismatch = order.status === 'amount_mismatch';
  if (mismatch && paidMinor === undefined)
    throw new OrderError(
      'not_pending',
      `Order ${orderId} is amount_mismatch (${order.note ?? 'the paid amount differs'}); to credit it, confirm with paid_amount, the amount the buyer really paid.`,
    );
  if (!mismatch && paidMinor !== undefined)
    throw new OrderError(
      'not_pending',
      `Order ${orderId} is ${order.status}; paid_amount applies to amount_mismatch orders only.`,
    );
  const settlement = await creditOrder(deps, order, null, adminId, mismatch ? { paidMinor: paidMinor! } : undefined);
  // Another admin accepted it first: one acceptance, one log line, one audit entry.
  if (mismatch && settlement.outcome === 'duplicate')
    throw new OrderError('not_pending', `Order ${orderId} was confirmed meanwhile.`);
  const currency = order.currency ?? 'CNY';
  await logPayment(deps.db, {
    instance: order.instance ?? order.provider,
    orderId,
    source: 'admin',
    verified: true,
    state: 'paid',
    outcome: mismatch
      ? `${settlement.outcome} by admin ${adminId}: amount mismatch accepted, paid ${paidMinor} ${currency} (ordered ${Number(order.amount_minor)})`
      : `${settlement.outcome} by admin ${adminId}`,
  });
  return settlement;
}

export class RefundError extends Error {
  constructor(
    readonly reason: 'not_paid' | 'too_much' | 'balance_short' | 'provider_refused' | 'in_progress',
    message: string,
  ) {
    super(message);
  }
}

export interface RefundRequest {
  orderId: number;
  /** Minor units to return; default: everything not yet refunded. */
  amountMinor?: number;
  reason: string;
  adminId: number;
  /** Ask the provider to send the money back (false: the admin returned it by hand). */
  viaProvider: boolean;
}

export interface RefundDone {
  order: OrderRow;
  refundNo: string;
  amountMinor: number;
  tokensMicro: number;
  providerRefunded: boolean;
}

export async function refundOrder(deps: SettleDeps, r: RefundRequest): Promise<RefundDone> {
  const order = await findOrder(deps.db, r.orderId);
  if (order.status !== 'paid')
    throw new RefundError('not_paid', `Order ${r.orderId} is ${order.status}; only paid orders can be refunded.`);
  const paidMinor = Number(order.amount_minor ?? 0);
  const tokensTotal = Number(order.tokens_micro ?? 0);
  const refundedTokens = Number(order.refunded_micro ?? 0);
  const refundedMinor = tokensTotal > 0 ? Math.round((refundedTokens / tokensTotal) * paidMinor) : 0;
  const amountMinor = r.amountMinor ?? paidMinor - refundedMinor;
  if (!Number.isSafeInteger(amountMinor) || amountMinor <= 0 || amountMinor > paidMinor - refundedMinor) {
    throw new RefundError(
      'too_much',
      `At most ${((paidMinor - refundedMinor) / 100).toFixed(2)} ${order.currency ?? 'CNY'} of order ${r.orderId} can still be refunded.`,
    );
  }
  const full = amountMinor === paidMinor - refundedMinor;
  // The TOKEN that go back with the money, proportionally; a full refund takes back exactly what is left.
  const tokensMicro = full ? tokensTotal - refundedTokens : Math.floor((tokensTotal * amountMinor) / paidMinor);
  const refundNo = `RF${order.id}-${randomBytes(4).toString('hex')}`;
  const userId = Number(order.user_id);
  const provider = deps.payments.providers.get(order.instance ?? order.provider);
  const now = Date.now();
  // 1. Reserve: take the TOKEN back and claim the order's refundable rest, before any money moves.
  try {
    await deps.db.transaction().execute(async (trx) => {
      const claimed = await trx
        .updateTable('orders')
        .set({ refunded_micro: refundedTokens + tokensMicro })
        .where('id', '=', order.id)
        .where('status', '=', 'paid')
        .where('refunded_micro', '=', refundedTokens)
        .executeTakeFirst();
      if (Number(claimed.numUpdatedRows) !== 1)
        throw new RefundError('too_much', `Order ${r.orderId} changed meanwhile; reload and try again.`);
      // Checked after the order row is locked by the update above, so two reserves cannot both pass.
      const busy = await trx
        .selectFrom('order_refunds')
        .select('refund_no')
        .where('order_id', '=', Number(order.id))
        .where('status', '=', 'pending')
        .executeTakeFirst();
      if (busy)
        throw new RefundError(
          'in_progress',
          `Refund ${busy.refund_no} of order ${r.orderId} is still in progress; try again when it has finished.`,
        );
      if (tokensMicro > 0)
        await applyEntry(trx, {
          userId,
          amount: -tokensMicro,
          kind: 'refund',
          ref: `refund:${refundNo}`,
          note: r.reason.slice(0, 200),
        });
      await trx
        .insertInto('order_refunds')
        .values({
          order_id: Number(order.id),
          refund_no: refundNo,
          amount_minor: amountMinor,
          tokens_micro: tokensMicro,
          status: 'pending',
          reason: r.reason,
          created_by: r.adminId,
          created_at: now,
        })
        .execute();
    });
  } catch (err) {
    if (err instanceof InsufficientBalanceError) {
      throw new RefundError(
        'balance_short',
        `The user no longer has ${tokensMicro / 1e6} TOKEN available to take back; refund less or deduct by hand.`,
      );
    }
    throw err;
  }
  // 2. Ask the provider.
  let providerRefunded = false;
  if (r.viaProvider && provider?.refund) {
    try {
      await provider.refund(order, amountMinor, refundNo);
      providerRefunded = true;
    } catch (err) {
      // 3a. Release: the money did not move, so nothing else may.
      await deps.db.transaction().execute(async (trx) => {
        if (tokensMicro > 0)
          await applyEntry(trx, {
            userId,
            amount: tokensMicro,
            kind: 'refund',
            ref: `refund-reversal:${refundNo}`,
            note: 'provider refused the refund',
          });
        await trx.updateTable('order_refunds').set({ status: 'failed' }).where('refund_no', '=', refundNo).execute();
        // Subtract what this refund added; never write back the snapshot, which could erase another refund.
        await trx
          .updateTable('orders')
          .set({ refunded_micro: sql<number>`refunded_micro - ${tokensMicro}` })
          .where('id', '=', order.id)
          .execute();
      });
      await logPayment(deps.db, {
        instance: provider.id,
        orderId: Number(order.id),
        source: 'admin',
        verified: false,
        outcome: `refund refused: ${(err as Error).message.slice(0, 150)}`,
      });
      throw new RefundError(
        'provider_refused',
        `The payment provider refused the refund: ${(err as Error).message.slice(0, 150)}`,
      );
    }
  }
  // 3b. Finalise. A full refund ends the plan bought by this order (its quota and days were what was paid for).
  await deps.db.transaction().execute(async (trx) => {
    if (order.kind === 'plan' && full)
      await trx
        .updateTable('subscriptions')
        .set({ ends_at: now })
        .where('ref', '=', `order:${order.id}`)
        .where('ends_at', '>', now)
        .execute();
    if (full) await trx.updateTable('orders').set({ status: 'refunded' }).where('id', '=', order.id).execute();
    await trx.updateTable('order_refunds').set({ status: 'done' }).where('refund_no', '=', refundNo).execute();
  });
  deps.invalidatePlan(userId);
  await logPayment(deps.db, {
    instance: order.instance ?? order.provider,
    orderId: Number(order.id),
    source: 'admin',
    verified: true,
    state: 'refunded',
    outcome: `refund ${refundNo} of ${amountMinor} by admin ${r.adminId}${providerRefunded ? ' via provider' : ''}`,
  });
  return { order: await findOrder(deps.db, Number(order.id)), refundNo, amountMinor, tokensMicro, providerRefunded };
}
