// Orders: a purchase of a plan or package, bound to one payment instance, with a snapshot of what it sells and
// for how much (operations.yaml prices hot-reload; an order keeps the price it was shown at). The buyer's
// pay page can be reopened any number of times: a click on the same item with the same method reuses the
// open order instead of making another. Crediting is core/billing/payments/settle-payment.ts, exactly once.
import type { Kysely } from 'kysely';
import type { Registry } from '../registry/registry.js';
import type { Database } from '../store/schema.js';
import type { ItemKind } from './grants.js';
import { type OrderRow, outTradeNoOf, type PaymentAction, type PaymentProvider } from './payment-provider.js';
import type { Payments } from './payments/provider-registry.js';

export type { OrderRow } from './payment-provider.js';

export class OrderError extends Error {
  constructor(
    readonly reason: 'unknown_item' | 'not_found' | 'cancelled' | 'not_pending' | 'unknown_method' | 'provider_failed',
    message: string,
  ) {
    super(message);
  }
}

/** An open order is reused only while the buyer still has this long to pay. */
const REUSE_MARGIN_MS = 2 * 60_000;

export interface OrderRequest {
  userId: number;
  kind: ItemKind;
  itemId: string;
  instance: string;
  method: string | null;
  clientIp: string;
}

export interface OpenOrder {
  order: OrderRow;
  action: PaymentAction;
  reused: boolean;
}

function providerOf(payments: Payments, instance: string): PaymentProvider {
  const p = payments.providers.get(instance);
  if (!p)
    throw new OrderError(
      'unknown_method',
      `There is no payment method "${instance.slice(0, 40)}". See GET /console/api/payment-methods.`,
    );
  return p;
}

export async function createOrder(
  db: Kysely<Database>,
  registry: Registry,
  payments: Payments,
  req: OrderRequest,
): Promise<OpenOrder> {
  const provider = providerOf(payments, req.instance);
  const method = req.method ?? provider.methods[0];
  if (!provider.methods.includes(method)) {
    throw new OrderError(
      'unknown_method',
      `Payment method "${req.instance}" offers ${provider.methods.join(', ')}, not "${method.slice(0, 40)}".`,
    );
  }
  const snapshot = snapshotOf(registry, req.kind, req.itemId);
  const now = Date.now();
  const open = await db
    .selectFrom('orders')
    .selectAll()
    .where('user_id', '=', req.userId)
    .where('kind', '=', req.kind)
    .where('item_id', '=', snapshot.id)
    .where('instance', '=', provider.id)
    .where('method', '=', method)
    .where('status', '=', 'pending')
    .where('amount', '=', snapshot.priceMicro)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (open?.pay_action && (open.expires_at === null || Number(open.expires_at) > now + REUSE_MARGIN_MS)) {
    return { order: open, action: JSON.parse(open.pay_action) as PaymentAction, reused: true };
  }
  // Manual orders wait for an admin; online ones expire (Stripe sessions need at least 30 minutes).
  const minutes =
    provider.kind === 'stripe'
      ? Math.max(30, payments.settings.orderExpiryMinutes)
      : payments.settings.orderExpiryMinutes;
  const expiresAt = provider.kind === 'manual' ? null : now + minutes * 60_000;
  const order = await db
    .insertInto('orders')
    .values({
      user_id: req.userId,
      kind: req.kind,
      item_id: snapshot.id,
      item_name: snapshot.name,
      amount: snapshot.priceMicro,
      provider: provider.kind,
      status: 'pending',
      created_at: now,
      paid_at: null,
      confirmed_by: null,
      instance: provider.id,
      method,
      currency: provider.currency,
      amount_minor: provider.amountFor(snapshot.priceMicro),
      tokens_micro: snapshot.tokensMicro,
      plan_days: snapshot.planDays,
      provider_ref: null,
      provider_trade_no: null,
      pay_action: null,
      expires_at: expiresAt,
      credited_at: null,
      closed_at: null,
      late: 0,
      refunded_micro: 0,
      note: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  try {
    const created = await provider.createPayment(
      {
        orderId: Number(order.id),
        outTradeNo: outTradeNoOf(Number(order.id)),
        subject: snapshot.name,
        amountMinor: Number(order.amount_minor),
        currency: provider.currency,
        expiresAt: expiresAt ?? 0,
        method,
        clientIp: req.clientIp,
        instructions: registry.config.manualInstructions,
      },
      { notifyUrl: payments.notifyUrl(provider.id), returnUrl: payments.returnUrl(Number(order.id)) },
    );
    const saved = await db
      .updateTable('orders')
      .set({ provider_ref: created.providerRef, pay_action: JSON.stringify(created.action) })
      .where('id', '=', order.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    return { order: saved, action: created.action, reused: false };
  } catch (err) {
    // Nothing was sent to pay: the order is closed so it neither shows as payable nor is reused.
    await db
      .updateTable('orders')
      .set({
        status: 'cancelled',
        closed_at: Date.now(),
        note: `create failed: ${(err as Error).message.slice(0, 200)}`,
      })
      .where('id', '=', order.id)
      .execute();
    throw new OrderError(
      'provider_failed',
      `The payment provider did not accept the order (${provider.id}); try again later or choose another method.`,
    );
  }
}

interface Snapshot {
  id: string;
  name: string;
  priceMicro: number;
  tokensMicro: number;
  planDays: number | null;
}

function snapshotOf(registry: Registry, kind: ItemKind, itemId: string): Snapshot {
  if (kind === 'plan') {
    const p = registry.plan(itemId);
    if (p)
      return { id: p.id, name: p.name, priceMicro: p.priceMicro, tokensMicro: p.grantMicro, planDays: p.durationDays };
  } else {
    const p = registry.package(itemId);
    if (p) return { id: p.id, name: p.name, priceMicro: p.priceMicro, tokensMicro: p.tokensMicro, planDays: null };
  }
  throw new OrderError('unknown_item', `There is no ${kind} "${itemId.slice(0, 64)}". See GET /console/api/${kind}s.`);
}

export interface OrderFilter {
  userId?: number;
  status?: OrderRow['status'];
  limit: number;
  /** Orders with a smaller id (pagination). */
  before?: number;
}

export async function listOrders(db: Kysely<Database>, f: OrderFilter): Promise<OrderRow[]> {
  let q = db.selectFrom('orders').selectAll().orderBy('id', 'desc').limit(f.limit);
  if (f.userId !== undefined) q = q.where('user_id', '=', f.userId);
  if (f.status !== undefined) q = q.where('status', '=', f.status);
  if (f.before !== undefined) q = q.where('id', '<', f.before);
  return q.execute();
}

export async function findOrder(db: Kysely<Database>, id: number, userId?: number): Promise<OrderRow> {
  let q = db.selectFrom('orders').selectAll().where('id', '=', id);
  if (userId !== undefined) q = q.where('user_id', '=', userId);
  const row = await q.executeTakeFirst();
  if (!row) throw new OrderError('not_found', `There is no order ${id}.`);
  return row;
}

/**
 * The buyer cancels a pending order. It is closed upstream first where the provider can (so it cannot be paid
 * any more); if it is paid anyway, settle() credits it as a late payment. An admin cancels any user's order
 * (userId undefined).
 */
export async function cancelOrder(
  db: Kysely<Database>,
  payments: Payments,
  userId: number | undefined,
  id: number,
): Promise<OrderRow> {
  const order = await findOrder(db, id, userId);
  if (order.status === 'cancelled') return order;
  if (order.status !== 'pending')
    throw new OrderError('not_pending', `Order ${id} is ${order.status} and cannot be cancelled.`);
  const provider = payments.providers.get(order.instance ?? order.provider);
  await provider?.closePayment?.(order).catch(() => undefined);
  const row = await db
    .updateTable('orders')
    .set({ status: 'cancelled', closed_at: Date.now() })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .returningAll()
    .executeTakeFirst();
  return row ?? findOrder(db, id, userId);
}
