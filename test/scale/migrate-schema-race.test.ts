// Migrations on a fresh PostgreSQL schema while other sessions create and drop schemas of their own (other test
// files, other deployments in the same database). Kysely's stock introspection read every schema and failed with
// `schema "<someone else's>" does not exist` when one was dropped mid-query: 13 of 20 migrations failed in this
// setup before the Migrator was scoped to its own schema (core/store/schema-scoped-migrator-db.ts).

import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import t from 'tap';
import { openStore } from '../../core/store/database.js';
import { MIGRATION_NAMES, migrateToLatest } from '../../core/store/migrate.js';
import { PG_URL, unreachable } from './backend.js';

const pgMissing = await unreachable();
const RUNS = 8;

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: PG_URL });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

t.test(
  'migrations succeed while other sessions drop their schemas',
  { skip: pgMissing ? `PostgreSQL needed: ${pgMissing}` : false },
  async (t) => {
    let stop = false;
    const churn = (): Promise<void> =>
      admin(async (c) => {
        while (!stop) {
          const s = `t_churn_${randomBytes(5).toString('hex')}`;
          await c.query(
            `create schema "${s}"; create table "${s}".a (id serial primary key, v int); create table "${s}".b (id bigserial primary key)`,
          );
          await c.query(`drop schema "${s}" cascade`);
        }
      });
    const churners = [churn(), churn()];
    const schemas: string[] = [];
    t.teardown(async () => {
      stop = true;
      await Promise.allSettled(churners);
      await admin(async (c) => {
        for (const s of schemas) await c.query(`drop schema if exists "${s}" cascade`);
      });
    });

    const failures: string[] = [];
    for (let i = 0; i < RUNS; i++) {
      const schema = `t_mig_${randomBytes(5).toString('hex')}`;
      schemas.push(schema);
      const store = openStore({ databaseUrl: PG_URL, dataDir: '/nonexistent', schema });
      try {
        const applied = await migrateToLatest(store.db as never, 'postgres');
        if (applied.join() !== MIGRATION_NAMES.join()) failures.push(`${schema}: applied ${applied.join()}`);
      } catch (err) {
        failures.push(`${schema}: ${(err as Error).message}`);
      } finally {
        await store.close();
      }
    }
    t.same(failures, [], `all ${RUNS} migrations applied every migration`);

    // The scoped check still finds the Migrator's own tables: a second run applies nothing and creates nothing twice.
    const again = openStore({ databaseUrl: PG_URL, dataDir: '/nonexistent', schema: schemas[0] });
    t.teardown(() => again.close());
    t.same(await migrateToLatest(again.db as never, 'postgres'), []);
    const rows = await admin((c) =>
      c.query<{ name: string }>(`select name from "${schemas[0]}".kysely_migration order by name`),
    );
    t.same(
      rows.rows.map((r) => r.name),
      [...MIGRATION_NAMES],
    );
    const lock = await admin((c) =>
      c.query<{ id: string; is_locked: number }>(`select id, is_locked from "${schemas[0]}".kysely_migration_lock`),
    );
    t.same(lock.rows, [{ id: 'migration_lock', is_locked: 0 }]);
  },
);

// Kysely's Migrator first takes one advisory lock for the whole database (its LOCK_ID). A gateway starting while
// another process migrates waits for it; under the serving pool's statement deadline that wait failed the start.
const MIGRATION_LOCK_ID = '3853314791062309107';

t.test(
  'a gateway with a short statement deadline starts while another process holds the migration lock',
  { skip: pgMissing ? `PostgreSQL needed: ${pgMissing}` : false },
  async (t) => {
    const schema = `t_mig_${randomBytes(5).toString('hex')}`;
    t.teardown(() => admin((c) => c.query(`drop schema if exists "${schema}" cascade`)));
    const holder = new pg.Client({ connectionString: PG_URL });
    await holder.connect();
    t.teardown(() => holder.end());
    await holder.query(`select pg_advisory_lock(${MIGRATION_LOCK_ID})`);

    const store = openStore({
      databaseUrl: PG_URL,
      dataDir: '/nonexistent',
      schema,
      connectTimeoutMs: 2000,
      statementTimeoutMs: 200,
    });
    t.teardown(() => store.close());
    let released = false;
    const migrated = store.migrate().then(
      (applied) => ({ applied, afterRelease: released }),
      (err: Error) => ({ error: err.message }),
    );
    // Ten times the statement deadline (and past the client's read deadline of statement + 1 s) before letting go.
    await new Promise((r) => setTimeout(r, 2000));
    released = true;
    await holder.query(`select pg_advisory_unlock(${MIGRATION_LOCK_ID})`);
    t.same(await migrated, { applied: [...MIGRATION_NAMES], afterRelease: true });
    // The serving pool keeps its deadline.
    await t.rejects(store.db.executeQuery(sql`select pg_sleep(1)`.compile(store.db)), /statement timeout/);
  },
);
