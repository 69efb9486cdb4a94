// Notifications and operator records: outbound webhook endpoints and their durable delivery
// queue, per-user low-balance alert settings, the admin/key audit log, and a second key hash so a rotated key's
// old secret keeps working for a grace period.
import type { Kysely } from 'kysely';
import type { MigrationContext } from './context.js';

export async function up(db: Kysely<unknown>, ctx: MigrationContext): Promise<void> {
  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('id', ctx.id.type, ctx.id.build)
    // null: an operator-level endpoint that receives the events of every user.
    .addColumn('user_id', 'bigint')
    .addColumn('url', 'text', (c) => c.notNull())
    // standard (Standard Webhooks signed JSON), wecom, dingtalk, feishu (chat bot bodies).
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('secret', 'text', (c) => c.notNull())
    /** DingTalk / Feishu bot signing secret, optional. */
    .addColumn('bot_secret', 'text')
    /** JSON array of event types. */
    .addColumn('events', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhook_endpoints_user').on('webhook_endpoints').column('user_id').execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', ctx.id.type, ctx.id.build)
    .addColumn('endpoint_id', 'bigint', (c) => c.notNull())
    .addColumn('user_id', 'bigint')
    /** The Standard Webhooks message id (msg_...): the same on every retry and replay, so receivers dedupe. */
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('next_at', 'bigint', (c) => c.notNull())
    .addColumn('lease_owner', 'text')
    .addColumn('lease_until', 'bigint')
    .addColumn('last_status', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('delivered_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_due')
    .on('webhook_deliveries')
    .columns(['status', 'next_at'])
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_endpoint')
    .on('webhook_deliveries')
    .columns(['endpoint_id', 'id'])
    .execute();

  await db.schema
    .createTable('alert_settings')
    .addColumn('user_id', 'bigint', (c) => c.primaryKey())
    /** micro-TOKEN; null: no balance alert. */
    .addColumn('balance_threshold', 'bigint')
    /** 1..99: alert when the plan's daily quota left falls below this percentage; null: none. */
    .addColumn('quota_percent', 'integer')
    .addColumn('email', 'integer', (c) => c.notNull())
    /** 1 while the next crossing may fire; the firing process flips it to 0, a top-up above the line sets it back. */
    .addColumn('armed', 'integer', (c) => c.notNull())
    .addColumn('last_fired_at', 'bigint')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('audit_log')
    .addColumn('id', ctx.id.type, ctx.id.build)
    .addColumn('actor_id', 'bigint')
    .addColumn('actor_role', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target_type', 'text', (c) => c.notNull())
    .addColumn('target_id', 'text')
    /** The user the change concerns (for a user's drill-down). */
    .addColumn('subject_user_id', 'bigint')
    .addColumn('detail', 'text', (c) => c.notNull())
    .addColumn('ip', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('audit_log_subject').on('audit_log').columns(['subject_user_id', 'id']).execute();

  // One row per expiry notice sent (plan.expiring, key.expiring): the primary key makes the daily scheduler in
  // several processes send each notice once.
  await db.schema
    .createTable('expiry_notices')
    .addColumn('notice', 'text', (c) => c.primaryKey())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema.alterTable('api_keys').addColumn('prev_key_hash', 'text').execute();
  await db.schema.alterTable('api_keys').addColumn('prev_expires_at', 'bigint').execute();
  await db.schema.createIndex('api_keys_prev_hash').on('api_keys').column('prev_key_hash').execute();
}
