// settle(): the one place a provider's answer (verified notification or query) changes an order. Crediting is
// one transaction: the conditional status update must hit exactly one row (pending, or expired/cancelled for a
// late payment), the provider trade number is unique per instance, and the ledger row `order:<id>` is unique;
// any of the three stops a second credit. The amount and currency must equal the order's snapshot. The
// caller acknowledges the provider only after this returns (i.e. after commit).
import { type Kysely, sql, type Transaction } from 'kysely';
import type { Logger } from '../../kernel/logger.js';
import type { Registry } from '../../registry/registry.js';
import type { Database } from '../../store/schema.js';
import { deliverItem } from '../grants.js';
import { applyEntry } from '../ledger.js';
import { type OrderRow, orderIdOf, type PaymentProvider, type PaymentResult } from '../payment-provider.js';
import { extendSubscription } from '../subscriptions.js';
import type { OrderCreditedEvent, Payments } from './provider-registry.js';

export type SettleOutcome =
  | 'credited'
  | 'credited_late'
  | 'duplicate'
  | 'amount_mismatch'
  | 'unknown_order'
  | 'wrong_instance'
  | 'trade_no_reused'
  | 'expired'
  | 'unchanged'
  | 'ignored';

export interface SettleDeps {
  db: Kysely<Database>;
  registry: () => Registry;
  payments: Payments;
  logger: Logger;
  /** Plan caches to drop for a user whose plan changed. */
  invalidatePlan: (userId: number) => void;
}

export interface Settlement {
  outcome: SettleOutcome;
  order: OrderRow | null;
  /** Whether the provider should be told "received" (false makes it retry). */
  ack: boolean;
}

const REOPENABLE = ['pending', 'expired', 'cancelled'] as const;

function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  return e.code === 'SQLITE_CONSTRAINT_UNIQUE' || e.code === '23505' || /UNIQUE constraint/i.test(e.message ?? '');
}

/** Put the order's contents on the account: the snapshot when it has one (prices hot-reload), else the catalogue. */
async function deliver(trx: Transaction<Database>, registry: Registry, o: OrderRow): Promise<number> {
  const userId = Number(o.user_id);
  const ref = `order:${o.id}`;
  if (o.tokens_micro === null)
    return (await deliverItem(trx, registry, userId, o.kind, o.item_id, ref, 'package')).tokensMicro;
  const tokens = Number(o.tokens_micro);
  if (o.kind === 'plan') {
    await extendSubscription(trx, userId, o.item_id, Number(o.plan_days ?? 0), ref);
    if (tokens > 0) await applyEntry(trx, { userId, amount: tokens, kind: 'plan_grant', ref, note: o.item_name });
  } else {
    await applyEntry(trx, { userId, amount: tokens, kind: 'package', ref, note: o.item_name });
  }
  return tokens;
}

/**
 * Credit a paid order once. `confirmedBy` marks an admin's manual confirmation (no amount to compare).
 * Returns 'duplicate' when it was credited already (the provider is still told "received").
 */
export async function creditOrder(
  deps: SettleDeps,
  order: OrderRow,
  providerTradeNo: string | null,
  confirmedBy: number | null,
  /** An admin's acceptance of an amount_mismatch order: only from that state, recording what was really paid. */
  mismatch?: { paidMinor: number },
): Promise<Settlement> {
  const now = Date.now();
  try {
    const result = await deps.db.transaction().execute(async (trx) => {
      const claimed = await trx
        .updateTable('orders')
        .set({
          status: 'paid',
          paid_at: now,
          credited_at: now,
          confirmed_by: confirmedBy,
          provider_trade_no: providerTradeNo ?? order.provider_trade_no,
          // Late: paid after the order had expired or been cancelled (an amount mismatch is not lateness).
          late: sql<number>`case when status in ('pending', 'amount_mismatch') then 0 else 1 end`,
          ...(mismatch ? { amount_minor: mismatch.paidMinor } : {}),
        })
        .where('id', '=', order.id)
        .where('status', 'in', mismatch ? ['amount_mismatch'] : REOPENABLE)
        .returningAll()
        .executeTakeFirst();
      if (!claimed) return null;
      const tokens = await deliver(trx, deps.registry(), claimed);
      return { claimed, tokens };
    });
    if (!result) return { outcome: 'duplicate', order: await reload(deps.db, Number(order.id)), ack: true };
    const { claimed, tokens } = result;
    deps.invalidatePlan(Number(claimed.user_id));
    const late = Number(claimed.late) === 1;
    notifyCredited(deps, {
      orderId: Number(claimed.id),
      userId: Number(claimed.user_id),
      kind: claimed.kind,
      itemId: claimed.item_id,
      amountMinor: Number(claimed.amount_minor ?? 0),
      currency: claimed.currency ?? 'CNY',
      tokensMicro: tokens,
      instance: claimed.instance ?? claimed.provider,
      late,
    });
    return { outcome: late ? 'credited_late' : 'credited', order: claimed, ack: true };
  } catch (err) {
    // The same provider trade number on a second order: a gateway bug or a replay; never credit twice.
    if (isUniqueViolation(err) && providerTradeNo !== null) {
      deps.logger.warn('payment trade number already used by another order', {
        order: Number(order.id),
        instance: order.instance,
      });
      return { outcome: 'trade_no_reused', order, ack: false };
    }
    throw err;
  }
}

function notifyCredited(deps: SettleDeps, e: OrderCreditedEvent): void {
  for (const listener of deps.payments.onOrderCredited) {
    Promise.resolve()
      .then(() => listener(e))
      .catch((err: unknown) =>
        deps.logger.error('order credited listener failed', { order: e.orderId, reason: (err as Error).message }),
      );
  }
}

async function reload(db: Kysely<Database>, id: number): Promise<OrderRow | null> {
  return (await db.selectFrom('orders').selectAll().where('id', '=', id).executeTakeFirst()) ?? null;
}

/** Feed one normalised provider answer (from a notification or a query) into the order's state machine. */
export async function settle(deps: SettleDeps, provider: PaymentProvider, r: PaymentResult): Promise<Settlement> {
  if (r.state === 'unknown' || r.state === 'ignored' || r.state === 'refunded') {
    // Unknown is never final; a refund notice is never a payment (Alipay TRADE_SUCCESS + refund_fee).
    return { outcome: r.state === 'unknown' ? 'unchanged' : 'ignored', order: null, ack: true };
  }
  const id = orderIdOf(r.outTradeNo);
  const order = id === null ? null : await reload(deps.db, id);
  if (!order) return { outcome: 'unknown_order', order: null, ack: false };
  // Each order is bound to the instance it was created with: another merchant's valid notice proves nothing here.
  if ((order.instance ?? order.provider) !== provider.id) return { outcome: 'wrong_instance', order, ack: false };

  if (r.state === 'paid') {
    const tolerance = provider.amountToleranceMinor ?? 0;
    const amountOk = r.amountMinor !== undefined && Math.abs(r.amountMinor - Number(order.amount_minor)) <= tolerance;
    const currencyOk = (r.currency ?? '').toUpperCase() === (order.currency ?? '').toUpperCase();
    if (!amountOk || !currencyOk) {
      await deps.db
        .updateTable('orders')
        .set({
          status: 'amount_mismatch',
          note: `notified ${r.amountMinor ?? '?'} ${r.currency ?? '?'}, ordered ${order.amount_minor} ${order.currency}`,
        })
        .where('id', '=', order.id)
        .where('status', 'in', REOPENABLE)
        .execute();
      deps.logger.warn('payment amount or currency differs from the order', {
        order: Number(order.id),
        instance: provider.id,
      });
      // Told "received": retrying the same wrong amount cannot help; an admin sees the order.
      return { outcome: 'amount_mismatch', order: await reload(deps.db, Number(order.id)), ack: true };
    }
    return creditOrder(deps, order, r.providerTradeNo ?? null, null);
  }
  if (r.state === 'closed' || r.state === 'failed') {
    const closed = await deps.db
      .updateTable('orders')
      .set({ status: 'expired', closed_at: Date.now() })
      .where('id', '=', order.id)
      .where('status', '=', 'pending')
      .returningAll()
      .executeTakeFirst();
    return { outcome: closed ? 'expired' : 'unchanged', order: closed ?? order, ack: true };
  }
  return { outcome: 'unchanged', order, ack: true };
}
