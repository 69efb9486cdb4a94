// Plans, subscriptions, orders and redeem codes: the purchase side of billing.
import type { Kysely } from 'kysely';
import type { MigrationContext } from './context.js';

export async function up(db: Kysely<unknown>, ctx: MigrationContext): Promise<void> {
  const id = ctx.id;
  await db.schema
    .createTable('subscriptions')
    .addColumn('id', id.type, id.build)
    .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id'))
    .addColumn('plan_id', 'text', (c) => c.notNull())
    .addColumn('starts_at', 'bigint', (c) => c.notNull())
    .addColumn('ends_at', 'bigint', (c) => c.notNull())
    .addColumn('ref', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('subscriptions_user_end').on('subscriptions').columns(['user_id', 'ends_at']).execute();

  await db.schema
    .createTable('orders')
    .addColumn('id', id.type, id.build)
    .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('item_id', 'text', (c) => c.notNull())
    .addColumn('item_name', 'text', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('paid_at', 'bigint')
    .addColumn('confirmed_by', 'bigint')
    .execute();
  await db.schema.createIndex('orders_user').on('orders').columns(['user_id', 'created_at']).execute();

  await db.schema
    .createTable('redeem_batches')
    .addColumn('id', id.type, id.build)
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('item_id', 'text', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addColumn('created_by', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint')
    .execute();

  await db.schema
    .createTable('redeem_codes')
    .addColumn('code', 'text', (c) => c.primaryKey())
    .addColumn('batch_id', 'bigint', (c) => c.notNull().references('redeem_batches.id'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('item_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint')
    .addColumn('redeemed_by', 'bigint')
    .addColumn('redeemed_at', 'bigint')
    .execute();
  await db.schema.createIndex('redeem_codes_batch').on('redeem_codes').column('batch_id').execute();

  await db.schema
    .createTable('login_failures')
    .addColumn('email', 'text', (c) => c.primaryKey())
    .addColumn('failures', 'integer', (c) => c.notNull())
    .addColumn('last_at', 'bigint', (c) => c.notNull())
    .execute();
}
