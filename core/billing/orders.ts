// Orders: a purchase of a plan or package, paid through a payment provider and fulfilled exactly once.
// Fulfilment is one transaction: a conditional pending -> paid update claims the order (only one confirmation
// can win it, however many arrive at once), then the ledger row `order:<id>` and any subscription follow.
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import type { Registry } from '../registry/registry.js';
import { deliverItem, findItem, type Delivery, type ItemKind } from './grants.js';
import type { OrderRow, PaymentEvidence, PaymentInstructions, PaymentProvider } from './payment-provider.js';

export type { OrderRow } from './payment-provider.js';

export class OrderError extends Error {
  constructor(
    readonly reason: 'unknown_item' | 'not_found' | 'cancelled' | 'not_paid',
    message: string,
  ) {
    super(message);
  }
}

export async function createOrder(
  db: Kysely<Database>,
  registry: Registry,
  provider: PaymentProvider,
  userId: number,
  kind: ItemKind,
  itemId: string,
): Promise<{ order: OrderRow; payment: PaymentInstructions }> {
  const item = findItem(registry, kind, itemId);
  if (!item) throw new OrderError('unknown_item', `There is no ${kind} "${itemId.slice(0, 64)}". See GET /console/api/${kind}s.`);
  const order = await db
    .insertInto('orders')
    .values({
      user_id: userId,
      kind,
      item_id: item.id,
      item_name: item.name,
      amount: item.priceMicro,
      provider: provider.name,
      status: 'pending',
      created_at: Date.now(),
      paid_at: null,
      confirmed_by: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { order, payment: await provider.startPayment(order) };
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

export interface Confirmation {
  order: OrderRow;
  /** True for the one confirmation that fulfilled the order; false when it was paid already. */
  fulfilled: boolean;
  delivery: Delivery | null;
}

/**
 * Mark the order paid and deliver it, once. A repeated or concurrent confirmation of a paid order changes
 * nothing and reports fulfilled: false (providers retry their notifications; a retry must succeed quietly).
 */
export async function confirmOrder(
  db: Kysely<Database>,
  registry: Registry,
  provider: PaymentProvider,
  orderId: number,
  evidence: PaymentEvidence,
): Promise<Confirmation> {
  const existing = await db.selectFrom('orders').selectAll().where('id', '=', orderId).executeTakeFirst();
  if (!existing) throw new OrderError('not_found', `There is no order ${orderId}.`);
  if (existing.status === 'cancelled') throw new OrderError('cancelled', `Order ${orderId} was cancelled and cannot be paid.`);
  if (existing.status === 'paid') return { order: existing, fulfilled: false, delivery: null };
  const verdict = await provider.verify(existing, evidence);
  if (!verdict.paid) throw new OrderError('not_paid', `Order ${orderId} is not paid: ${verdict.reason}.`);
  return db.transaction().execute(async (trx) => {
    const claimed = await trx
      .updateTable('orders')
      .set({ status: 'paid', paid_at: Date.now(), confirmed_by: evidence.confirmedBy ?? null })
      .where('id', '=', orderId)
      .where('status', '=', 'pending')
      .returningAll()
      .executeTakeFirst();
    if (!claimed) {
      // Another confirmation won the race between our read and this update.
      const now = await trx.selectFrom('orders').selectAll().where('id', '=', orderId).executeTakeFirstOrThrow();
      if (now.status === 'cancelled') throw new OrderError('cancelled', `Order ${orderId} was cancelled and cannot be paid.`);
      return { order: now, fulfilled: false, delivery: null };
    }
    const delivery = await deliverItem(trx, registry, Number(claimed.user_id), claimed.kind, claimed.item_id, `order:${orderId}`, 'package');
    return { order: claimed, fulfilled: true, delivery };
  });
}
