// Runs the migrations in order with Kysely's Migrator. Migrations are imported statically (no file scanning),
// so they work the same under tsx, in tests and in a bundled build.
import { Migrator, sql, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import { migrationContext } from './migrations/context.js';
import * as m001 from './migrations/001_initial.js';
import * as m002 from './migrations/002_billing.js';

const MIGRATIONS = { '001_initial': m001, '002_billing': m002 };

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
    dialect === 'postgres' ? (await sql<{ s: string }>`select current_schema() as s`.execute(db)).rows[0]?.s : undefined;
  const { error, results } = await new Migrator({ db, provider, migrationTableSchema }).migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
