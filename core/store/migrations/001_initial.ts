// The foundation tables. Written once for both SQLite and PostgreSQL; only the id column differs.
import { type Kysely, sql } from 'kysely';
import type { MigrationContext } from './context.js';

export async function up(db: Kysely<unknown>, ctx: MigrationContext): Promise<void> {
  const id = ctx.id;
  await db.schema
    .createTable('users')
    .addColumn('id', id.type, id.build)
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull().defaultTo('user'))
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('active'))
    .addColumn('balance', 'bigint', (c) => c.notNull().defaultTo(0).check(sql`balance >= 0`))
    .addColumn('held', 'bigint', (c) => c.notNull().defaultTo(0).check(sql`held >= 0`))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('user_tokens')
    .addColumn('id', id.type, id.build)
    .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint')
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', id.type, id.build)
    .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('active'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_used_at', 'bigint')
    .addColumn('expires_at', 'bigint')
    .addColumn('allowed_codes', 'text')
    .addColumn('ip_allow', 'text')
    .addColumn('rate_limit_per_sec', 'integer')
    .addColumn('rate_limit_burst', 'integer')
    .addColumn('max_concurrency', 'integer')
    .addColumn('daily_spend_cap', 'bigint')
    .addColumn('deleted_at', 'bigint')
    .execute();
  await db.schema.createIndex('api_keys_user').on('api_keys').column('user_id').execute();

  await db.schema
    .createTable('ledger')
    .addColumn('id', id.type, id.build)
    .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id'))
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('balance_after', 'bigint', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('ref', 'text', (c) => c.notNull().unique())
    .addColumn('operation', 'text')
    .addColumn('note', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('ledger_user_time').on('ledger').columns(['user_id', 'created_at']).execute();

  await db.schema
    .createTable('holds')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id'))
    .addColumn('amount', 'bigint', (c) => c.notNull().check(sql`amount > 0`))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('holds_expiry').on('holds').column('expires_at').execute();

  await db.schema
    .createTable('call_log')
    .addColumn('id', id.type, id.build)
    .addColumn('request_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'bigint')
    .addColumn('key_id', 'bigint')
    .addColumn('operation', 'text')
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('error_code', 'text')
    .addColumn('charged', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('cached', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('free_reason', 'text')
    .addColumn('duration_ms', 'real', (c) => c.notNull())
    .addColumn('plugin_ms', 'real')
    .addColumn('ip', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('call_log_user_time').on('call_log').columns(['user_id', 'created_at']).execute();
  await db.schema.createIndex('call_log_request').on('call_log').column('request_id').execute();

  await db.schema
    .createTable('idempotency')
    .addColumn('user_id', 'bigint', (c) => c.notNull())
    .addColumn('idem_key', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('status', 'integer')
    .addColumn('response', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_pk', ['user_id', 'idem_key'])
    .execute();
}
