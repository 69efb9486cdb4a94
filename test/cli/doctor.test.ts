// tollgate doctor: one line per check, FAIL lines make exit 1, and it changes nothing (no migration run, no
// database file created). In-process with the environment it reads; Redis is the shared test server.

import { once } from 'node:events';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import t from 'tap';
import { doctor, runDoctor } from '../../core/cli/doctor.js';
import { openStore } from '../../core/store/database.js';
import { MIGRATION_NAMES, migrateToLatest } from '../../core/store/migrate.js';

const root = mkdtempSync(join(tmpdir(), 'tollgate-doctor-'));
const saved = { ...process.env };

async function withEnv(env: Record<string, string>, run: () => Promise<void>): Promise<void> {
  for (const k of ['DATA_DIR', 'DATABASE_URL', 'REDIS_URL', 'OPERATIONS_FILE', 'PLUGIN_DIRS', 'PORT'])
    delete process.env[k];
  Object.assign(process.env, env);
  try {
    await run();
  } finally {
    process.env = { ...saved };
  }
}

async function lines(): Promise<Record<string, string>> {
  return Object.fromEntries((await runDoctor()).map((l) => [l.check, `${l.status} ${l.detail}`]));
}

t.test('a fresh install: no database yet is a FAIL, and doctor does not create one', async (t) => {
  const dataDir = join(root, 'fresh', 'data');
  await withEnv({ DATA_DIR: dataDir }, async () => {
    const got = await lines();
    t.match(got.node, new RegExp(`^ok ${process.version.replace(/\./g, '\\.')} \\(needs >=20\\.17\\.0\\)$`));
    t.equal(got.flags, 'ok --no-node-snapshot set');
    t.match(got.native, /^ok better-sqlite3 \(SQLite 3\.\d+\.\d+\), isolated-vm$/);
    t.equal(got.env, 'ok environment parsed');
    t.equal(
      got.database,
      `FAIL no database at ${join(dataDir, 'tollgate.db')} yet; run tollgate migrate (or start the gateway)`,
    );
    t.equal(got.redis, 'skip REDIS_URL unset: limits, counters and cache are per process');
    t.match(got.plugins, /^ok \d+ loaded \(.*phone.*\), \d+ operations/);
    t.equal(got['data dir'], `ok ${dataDir} missing; ${root} writable, it will be created`);
    t.notOk(existsSync(dataDir), 'nothing created');
    const printed: string[] = [];
    t.equal(await doctor((l) => printed.push(l)), 1, 'a FAIL line is exit 1');
    t.equal(printed.length, 8);
    t.match(printed[4], /^FAIL {2}database {2}no database at /);
  });
});

t.test('migrated, with Redis: every line ok, exit 0; a pending migration is named', async (t) => {
  const dataDir = join(root, 'migrated');
  const store = openStore({ databaseUrl: null, dataDir });
  await migrateToLatest(store.db as never, 'sqlite');
  await store.close();
  await withEnv({ DATA_DIR: dataDir, REDIS_URL: 'redis://127.0.0.1:6379' }, async () => {
    const got = await lines();
    t.equal(
      got.database,
      `ok SQLite ${join(dataDir, 'tollgate.db')} reachable, ${MIGRATION_NAMES.length} migrations current`,
    );
    t.match(got.redis, /^ok reachable, Redis \d+\.\d+/);
    t.equal(got['data dir'], `ok ${dataDir} writable`);
    t.equal(await doctor(() => undefined), 0);

    const last = MIGRATION_NAMES[MIGRATION_NAMES.length - 1];
    new SQLite(join(dataDir, 'tollgate.db')).prepare('delete from kysely_migration where name = ?').run(last);
    t.equal(
      (await lines()).database,
      `FAIL SQLite ${join(dataDir, 'tollgate.db')} reachable; 1 migration(s) pending (${last}): run tollgate migrate`,
    );
    const applied = new SQLite(join(dataDir, 'tollgate.db'), { readonly: true })
      .prepare('select count(*) as n from kysely_migration')
      .get() as { n: number };
    t.equal(applied.n, MIGRATION_NAMES.length - 1, 'doctor did not migrate');
  });
});

t.test('Redis down, operations naming a missing plugin, a data dir that cannot be written', async (t) => {
  const closed = createServer().listen(0, '127.0.0.1');
  await once(closed, 'listening');
  const port = (closed.address() as { port: number }).port;
  closed.close();
  const ops = join(root, 'ops.yaml');
  writeFileSync(
    ops,
    'operations:\n  - code: a\n    plugin: nosuch\n    price_per_call: 1\n    input: { type: object }\n',
  );
  const file = join(root, 'a-file');
  writeFileSync(file, 'x');
  await withEnv(
    { DATA_DIR: join(file, 'data'), REDIS_URL: `redis://127.0.0.1:${port}`, OPERATIONS_FILE: ops },
    async () => {
      const got = await lines();
      t.match(
        got.redis,
        new RegExp(`^FAIL not reachable at 127\\.0\\.0\\.1:${port}: connect ECONNREFUSED 127\\.0\\.0\\.1:${port}$`),
      );
      t.equal(
        got.plugins,
        'FAIL ops.yaml: operation "a" at operations[0].plugin (line 3): no plugin folder "nosuch" (tollgate config check lists all)',
      );
      t.match(got['data dir'], /^FAIL ENOTDIR/);
      t.equal(await doctor(() => undefined), 1);
    },
  );
});

t.test('an environment that does not parse skips what depends on it', async (t) => {
  await withEnv({ PORT: 'eighty' }, async () => {
    const got = await lines();
    t.equal(got.env, 'FAIL PORT must be an integer >= 0, got "eighty"');
    for (const check of ['database', 'redis', 'plugins', 'data dir'])
      t.equal(got[check], 'skip environment does not parse', check);
  });
});
