// order.paid: every credited order (online notification, query, or an admin's manual confirmation) becomes a
// webhook event for the buyer's endpoints and the operator's. The listener runs after the credit committed.
import type { Kysely } from 'kysely';
import type { OrderCreditedEvent } from '../billing/payments/provider-registry.js';
import { toToken } from '../kernel/money.js';
import type { Database } from '../store/schema.js';
import type { Webhooks } from './webhooks/webhooks.js';

export async function emitOrderPaid(db: Kysely<Database>, webhooks: Webhooks, e: OrderCreditedEvent): Promise<void> {
  const user = await db.selectFrom('users').select('email').where('id', '=', e.userId).executeTakeFirst();
  await webhooks.emit(
    'order.paid',
    {
      order_id: e.orderId,
      user_id: e.userId,
      email: user?.email ?? null,
      kind: e.kind,
      item_id: e.itemId,
      // Minor units (fen, cents) as a decimal amount in the order's currency.
      amount: e.amountMinor / 100,
      currency: e.currency,
      tokens: toToken(e.tokensMicro),
      instance: e.instance,
      late: e.late,
    },
    e.userId,
  );
}
