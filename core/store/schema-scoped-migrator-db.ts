// Kysely's Migrator asks `db.introspection` whether its own tables exist. On PostgreSQL the stock introspector
// lists the tables of EVERY schema in the database and calls has_schema_privilege(name) and
// pg_get_serial_sequence(name) on each: those look the name up again outside the query's snapshot, so a schema
// that another session drops while the query runs fails it with `schema "<theirs>" does not exist`. With several
// deployments (or test runs) sharing one database, one of them dropping its schema broke another's startup.
// The Migrator only needs its two tables in its own schema, so it gets an introspector that reads that schema's
// catalog rows alone, with no by-name lookups.
import { type DatabaseIntrospector, type Kysely, type SchemaMetadata, sql, type TableMetadata } from 'kysely';

function scopedIntrospector(db: Kysely<unknown>, schema: string): DatabaseIntrospector {
  const getTables = async (): Promise<TableMetadata[]> => {
    const { rows } = await sql<{ name: string; kind: string }>`
      select c.relname as name, c.relkind as kind
      from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
      where n.nspname = ${schema} and c.relkind in ('r', 'v', 'p')`.execute(db);
    // Columns are left out: the Migrator reads only the names and the schema.
    return rows.map((r) => ({ name: r.name, schema, isView: r.kind === 'v', columns: [] }));
  };
  const getSchemas = async (): Promise<SchemaMetadata[]> => {
    const { rows } = await sql<{
      name: string;
    }>`select nspname as name from pg_catalog.pg_namespace where nspname = ${schema}`.execute(db);
    return rows;
  };
  return { getSchemas, getTables, getMetadata: async () => ({ tables: await getTables() }) };
}

/** `db` for a Migrator whose tables live in `schema`: the same Kysely, with only `introspection` replaced. */
export function schemaScopedMigratorDb<T>(db: Kysely<T>, schema: string): Kysely<T> {
  const introspection = scopedIntrospector(db as Kysely<unknown>, schema);
  return new Proxy(db, {
    get(target, prop) {
      if (prop === 'introspection') return introspection;
      // Kysely keeps its state in private fields, so its methods must run on the real instance.
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
