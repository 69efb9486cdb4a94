// Account security: the mail outbox, single-use account tokens (password reset, email
// verification, 2FA login challenges), per-user security settings (locale, verification, TOTP) and 2FA
// recovery codes. Security data lives beside users, not in it, so the users row stays the money row.
import type { Kysely } from 'kysely';
import type { MigrationContext } from './context.js';

export async function up(db: Kysely<unknown>, ctx: MigrationContext): Promise<void> {
  const id = ctx.id;
  // Every mail the gateway sends or would send: the outbox when no SMTP is configured, a record otherwise.
  await db.schema
    .createTable('mail_outbox')
    .addColumn('id', id.type, id.build)
    .addColumn('to_addr', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('text_body', 'text', (c) => c.notNull())
    .addColumn('html_body', 'text')
    .addColumn('transport', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('message_id', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('mail_outbox_created').on('mail_outbox').column('created_at').execute();

  await db.schema
    .createTable('account_tokens')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id'))
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .execute();
  await db.schema.createIndex('account_tokens_user').on('account_tokens').columns(['user_id', 'purpose']).execute();

  await db.schema
    .createTable('user_security')
    .addColumn('user_id', 'bigint', (c) => c.primaryKey().references('users.id'))
    .addColumn('locale', 'text')
    .addColumn('email_unverified', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('totp_secret', 'text')
    .addColumn('totp_pending_secret', 'text')
    .addColumn('totp_enabled_at', 'bigint')
    .addColumn('totp_last_step', 'bigint')
    .execute();

  await db.schema
    .createTable('recovery_codes')
    .addColumn('id', id.type, id.build)
    .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id'))
    .addColumn('code_hash', 'text', (c) => c.notNull().unique())
    .addColumn('used_at', 'bigint')
    .execute();
}
