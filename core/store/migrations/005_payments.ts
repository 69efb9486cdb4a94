// Online payments (docs/billing.md "Payments"): each order keeps a snapshot of what was sold and for how much (prices
// hot-reload, so crediting never re-reads them), the provider instance it is bound to and the provider's trade number
// (unique per instance, the second guard of exactly-once crediting after the conditional status update). Every raw
// notification goes to payment_log; refunds are rows with their own idempotency key.
import { type Kysely, sql } from 'kysely';
import type { MigrationContext } from './context.js';

export async function up(db: Kysely<unknown>, ctx: MigrationContext): Promise<void> {
  const id = ctx.id;
  const add = (name: string, type: 'text' | 'bigint' | 'integer') =>
    db.schema.alterTable('orders').addColumn(name, type).execute();
  await add('instance', 'text');
  await add('method', 'text');
  await add('currency', 'text');
  await add('amount_minor', 'bigint');
  await add('tokens_micro', 'bigint');
  await add('plan_days', 'integer');
  await add('provider_ref', 'text');
  await add('provider_trade_no', 'text');
  await add('pay_action', 'text');
  await add('expires_at', 'bigint');
  await add('credited_at', 'bigint');
  await add('closed_at', 'bigint');
  await add('late', 'integer');
  await add('refunded_micro', 'bigint');
  await add('note', 'text');
  // Orders written before this migration were manual CNY orders: 1 TOKEN = 100 fen.
  await sql`update orders set instance = provider, currency = 'CNY', amount_minor = amount / 10000, refunded_micro = 0`.execute(
    db,
  );
  await db.schema
    .createIndex('orders_instance_trade_no')
    .on('orders')
    .columns(['instance', 'provider_trade_no'])
    .unique()
    .execute();
  await db.schema.createIndex('orders_status_created').on('orders').columns(['status', 'created_at']).execute();

  await db.schema
    .createTable('payment_log')
    .addColumn('id', id.type, id.build)
    .addColumn('instance', 'text', (c) => c.notNull())
    .addColumn('order_id', 'bigint')
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('http_method', 'text')
    .addColumn('client_ip', 'text')
    .addColumn('verified', 'integer', (c) => c.notNull())
    .addColumn('state', 'text')
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text')
    .addColumn('raw', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('payment_log_order').on('payment_log').columns(['order_id', 'id']).execute();

  await db.schema
    .createTable('order_refunds')
    .addColumn('id', id.type, id.build)
    .addColumn('order_id', 'bigint', (c) => c.notNull().references('orders.id'))
    .addColumn('refund_no', 'text', (c) => c.notNull().unique())
    .addColumn('amount_minor', 'bigint', (c) => c.notNull())
    .addColumn('tokens_micro', 'bigint', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('created_by', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
}
