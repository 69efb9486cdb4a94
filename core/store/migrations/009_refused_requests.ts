// Requests that prove nothing (no key, a bad key, refused by a rate or concurrency limit, a payment notification
// that fails verification) are counted, not logged one row each: one row per source, target, code and minute,
// whose count grows (core/store/refused-log.ts). A flood from one address then costs a row a minute, not a row a
// request. `source` is the address group (an IPv4 address, an IPv6 /64) or '*' for the overflow of a busy minute;
// `key_id` 0 and `target` '' stand for none, so the unique index can merge counts (NULLs never conflict).
import type { Kysely } from 'kysely';
import type { MigrationContext } from './context.js';

export async function up(db: Kysely<unknown>, _ctx: MigrationContext): Promise<void> {
  await db.schema
    .createTable('refused_requests')
    .addColumn('minute', 'bigint', (c) => c.notNull())
    // api | notify
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('user_id', 'bigint')
    .addColumn('key_id', 'bigint', (c) => c.notNull())
    // The operation code (api) or the payment instance (notify); '' when not known.
    .addColumn('target', 'text', (c) => c.notNull())
    .addColumn('code', 'text', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('count', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('refused_requests_slot')
    .on('refused_requests')
    .columns(['minute', 'kind', 'source', 'key_id', 'target', 'code'])
    .unique()
    .execute();
  await db.schema.createIndex('refused_requests_user').on('refused_requests').columns(['user_id', 'minute']).execute();
}
