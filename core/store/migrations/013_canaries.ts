// Canaries and operation status: call-log rows say whether a canary made them and, for an upstream failure, its
// class; canary_results keeps every probe and every live success the runner counted (the status page's bars);
// operation_status is the state machine per operation and platform; leases elect the one process that probes.
import type { Kysely } from 'kysely';
import type { MigrationContext } from './context.js';

export async function up(db: Kysely<unknown>, ctx: MigrationContext): Promise<void> {
  await db.schema
    .alterTable('call_log')
    .addColumn('canary', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('call_log').addColumn('failure_class', 'text').execute();

  await db.schema
    .createTable('canary_results')
    .addColumn('id', ctx.id.type, ctx.id.build)
    .addColumn('operation', 'text', (c) => c.notNull())
    /** '' for an operation-wide sample. */
    .addColumn('platform', 'text', (c) => c.notNull())
    /** canary: a probe; live: a customer's success seen meanwhile, counted instead of a probe. */
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('ok', 'integer', (c) => c.notNull())
    .addColumn('failure_class', 'text')
    .addColumn('field', 'text')
    .addColumn('detail', 'text')
    .addColumn('duration_ms', 'real')
    .addColumn('request_id', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('canary_results_subject')
    .on('canary_results')
    .columns(['operation', 'platform', 'created_at'])
    .execute();
  await db.schema.createIndex('canary_results_time').on('canary_results').column('created_at').execute();

  await db.schema
    .createTable('operation_status')
    .addColumn('operation', 'text', (c) => c.notNull())
    .addColumn('platform', 'text', (c) => c.notNull())
    /** unknown (no result yet), ok, degraded, down. */
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('since', 'bigint', (c) => c.notNull())
    .addColumn('last_success_at', 'bigint')
    .addColumn('last_failure_at', 'bigint')
    .addColumn('last_class', 'text')
    .addColumn('last_field', 'text')
    .addColumn('last_detail', 'text')
    .addColumn('failures', 'integer', (c) => c.notNull())
    .addColumn('successes', 'integer', (c) => c.notNull())
    .addColumn('next_probe_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('operation_status_pk', ['operation', 'platform'])
    .execute();

  await db.schema
    .createTable('leases')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('owner', 'text', (c) => c.notNull())
    .addColumn('until', 'bigint', (c) => c.notNull())
    .execute();
}
