// The console's call-log pages and CSV chunks walk a user's rows newest first by (created_at, id) on
// call_log_user_time (billing/usage.ts listCalls), so the (user_id, id) index added for them in 004 goes. Every
// billed call writes a call-log row, and each index that starts with user_id puts that row's entry on its own
// user's page, so dropping this one made a capture on the writer thread cheaper (docs/performance.md "Costs cited by
// the code").
import type { Kysely } from 'kysely';
import type { MigrationContext } from './context.js';

export async function up(db: Kysely<unknown>, _ctx: MigrationContext): Promise<void> {
  await db.schema.dropIndex('call_log_user_id').ifExists().execute();
}
