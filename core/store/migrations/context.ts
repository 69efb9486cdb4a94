// What differs between SQLite and PostgreSQL in DDL, handed to every migration.
import type { ColumnDefinitionBuilder } from 'kysely';

export interface MigrationContext {
  dialect: 'sqlite' | 'postgres';
  /** Auto-increment primary key column. */
  id: { type: 'integer' | 'bigserial'; build: (c: ColumnDefinitionBuilder) => ColumnDefinitionBuilder };
}

export function migrationContext(dialect: 'sqlite' | 'postgres'): MigrationContext {
  return dialect === 'sqlite'
    ? { dialect, id: { type: 'integer', build: (c) => c.primaryKey().autoIncrement() } }
    : { dialect, id: { type: 'bigserial', build: (c) => c.primaryKey() } };
}
