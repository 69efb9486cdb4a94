// Which configured upstream served a call (operations.yaml `upstreams:`) and what that upstream call cost, in
// micro-TOKEN: the margin report (billing/margin.ts) sums revenue against it per day, operation and upstream.
import type { Kysely } from 'kysely';
import type { MigrationContext } from './context.js';

export async function up(db: Kysely<unknown>, _ctx: MigrationContext): Promise<void> {
  await db.schema.alterTable('call_log').addColumn('upstream', 'text').execute();
  await db.schema
    .alterTable('call_log')
    .addColumn('upstream_cost', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
}
