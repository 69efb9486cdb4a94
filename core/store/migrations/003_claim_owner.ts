// 1. Idempotency claims name the call that holds them (its request id), so a claim whose lease ran out can be taken
// over by a retry and the old call, should it still finish, can tell it no longer owns the key.
// 2. A scratch table for /api/health's write probe after a disk-full or I/O fault (always empty otherwise).
import type { Kysely } from 'kysely';
import type { MigrationContext } from './context.js';

export async function up(db: Kysely<unknown>, ctx: MigrationContext): Promise<void> {
  await db.schema.alterTable('idempotency').addColumn('owner', 'text').execute();
  // Startup releases the pending claims of a dead process; this index keeps that a range scan.
  await db.schema.createIndex('idempotency_state').on('idempotency').columns(['state', 'expires_at']).execute();
  await db.schema
    .createTable('health_probe')
    .addColumn('id', ctx.id.type, ctx.id.build)
    .addColumn('filler', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
}
