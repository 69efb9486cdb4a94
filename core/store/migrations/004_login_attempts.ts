// Login throttling by scope (IP + account, IP, account, known-good IP) instead of by email alone, with an
// index for pruning; a (user_id, id) index for call-log pages and CSV chunks; and a repair of money caps written before amounts were range-checked (F15).
import { type Kysely, sql } from 'kysely';
import type { MigrationContext } from './context.js';

/** 10^9 TOKEN in micro: the largest amount the edge accepts (core/kernel/money.ts MAX_MICRO). */
const MAX_MICRO = 1_000_000_000_000_000;

export async function up(db: Kysely<unknown>, _ctx: MigrationContext): Promise<void> {
  await db.schema
    .createTable('login_attempts')
    .addColumn('scope', 'text', (c) => c.primaryKey())
    .addColumn('failures', 'integer', (c) => c.notNull())
    .addColumn('last_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('login_attempts_last_at').on('login_attempts').column('last_at').execute();
  await db.schema.dropTable('login_failures').execute();
  // The console reads a user's call log newest first by id in pages and CSV chunks (keyset on id).
  await db.schema.createIndex('call_log_user_id').on('call_log').columns(['user_id', 'id']).execute();
  // A cap above the maximum could not be read back exactly (it broke key listing); at 10^9 TOKEN it is no less
  // protective than it was.
  await sql`update api_keys set daily_spend_cap = ${MAX_MICRO} where daily_spend_cap > ${MAX_MICRO}`.execute(db);
}
