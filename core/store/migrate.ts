// Runs the migrations in order with Kysely's Migrator. Migrations are imported statically (no file scanning),
// so they work the same from the TypeScript sources, in tests and in a bundled build.
import { type Kysely, type Migration, type MigrationProvider, Migrator, sql } from 'kysely';
import * as m001 from './migrations/001_initial.js';
import * as m002 from './migrations/002_billing.js';
import * as m003 from './migrations/003_claim_owner.js';
import * as m004 from './migrations/004_login_attempts.js';
import * as m005 from './migrations/005_payments.js';
import * as m006 from './migrations/006_account_security.js';
import * as m007 from './migrations/007_notifications.js';
import * as m008 from './migrations/008_call_log_pages.js';
import * as m009 from './migrations/009_refused_requests.js';
import * as m012 from './migrations/012_call_log_upstream.js';
import * as m013 from './migrations/013_canaries.js';
import * as m014 from './migrations/014_pg_money_batch.js';
import * as m015 from './migrations/015_pg_money_spend.js';
import * as m016 from './migrations/016_pg_money_no_subtransactions.js';
import * as m017 from './migrations/017_pg_money_log_rows_at_once.js';
import { migrationContext } from './migrations/context.js';
import { schemaScopedMigratorDb } from './schema-scoped-migrator-db.js';

const MIGRATIONS = {
  '001_initial': m001,
  '002_billing': m002,
  '003_claim_owner': m003,
  '004_login_attempts': m004,
  '005_payments': m005,
  '006_account_security': m006,
  '007_notifications': m007,
  '008_call_log_pages': m008,
  '009_refused_requests': m009,
  '012_call_log_upstream': m012,
  '013_canaries': m013,
  '014_pg_money_batch': m014,
  '015_pg_money_spend': m015,
  '016_pg_money_no_subtransactions': m016,
  '017_pg_money_log_rows_at_once': m017,
};

/** Every migration this build knows, in order: `tollgate doctor` compares them with the applied ones. */
export const MIGRATION_NAMES: readonly string[] = Object.keys(MIGRATIONS);

export async function migrateToLatest(db: Kysely<unknown>, dialect: 'sqlite' | 'postgres'): Promise<string[]> {
  const ctx = migrationContext(dialect);
  const provider: MigrationProvider = {
    getMigrations: async () =>
      Object.fromEntries(
        Object.entries(MIGRATIONS).map(([name, mod]): [string, Migration] => [name, { up: (d) => mod.up(d, ctx) }]),
      ),
  };
  // On PostgreSQL the Migrator looks for its own tables in every schema unless told which: with several
  // deployments (or test runs) in one database it would find another schema's tables and skip creating its own.
  const migrationTableSchema =
    dialect === 'postgres'
      ? (await sql<{ s: string }>`select current_schema() as s`.execute(db)).rows[0]?.s
      : undefined;
  // It also looks only there: its stock PostgreSQL check reads every schema and fails when another one is dropped
  // meanwhile (schema-scoped-migrator-db.ts).
  const migratorDb = migrationTableSchema ? schemaScopedMigratorDb(db, migrationTableSchema) : db;
  const { error, results } = await new Migrator({ db: migratorDb, provider, migrationTableSchema }).migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
