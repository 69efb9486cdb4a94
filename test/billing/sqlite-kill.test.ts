// kill -9 on SQLite, where holds live in memory (core/billing/memory-holds.ts): a gateway killed in the middle of
// billed load loses only its reservations. Every call answered 200 has its ledger row, nothing stays held,
// reconcile passes, and a restarted process starts from the committed balance.

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import t from 'tap';
import { reconcile } from '../../core/billing/reconcile.js';
import { openStore, type Store } from '../../core/store/database.js';
import { migrateToLatest } from '../../core/store/migrate.js';
import { type Gateway, gatewayEnv, load, scaleOperationsFile, seedUser, startGateway } from '../scale/support.js';

const dataDir = mkdtempSync(join(tmpdir(), 'tollgate-sqlite-kill-'));
const env = gatewayEnv('unused', 'unused', scaleOperationsFile(), { DATA_DIR: dataDir });
for (const k of ['DATABASE_URL', 'DATABASE_SCHEMA', 'REDIS_URL', 'REDIS_PREFIX']) delete env[k];

const open = async (): Promise<Store> => {
  const store = openStore({ databaseUrl: null, dataDir });
  await migrateToLatest(store.db as never, 'sqlite');
  return store;
};

const gateways: Gateway[] = [];
t.teardown(async () => {
  await Promise.all(gateways.map((g) => g.stop('SIGKILL')));
});

t.test(
  'kill -9 mid-load: answered calls are charged, nothing stays held, reconcile passes, a restart starts clean',
  async (t) => {
    const seed = await open();
    const u = await seedUser(seed, '100');
    await seed.close();

    const first = await startGateway(env);
    gateways.push(first);
    let killed = false;
    // Calls spin 50 ms, so at the kill many of them hold money in memory (queued for an isolate or running).
    const results = await load(
      400,
      40,
      () => first.port,
      '/api/echo?spinMs=50',
      u.key,
      (_r, done) => {
        if (done === 60 && !killed) {
          killed = true;
          first.proc.kill('SIGKILL');
        }
      },
    );
    await first.stop('SIGKILL');
    t.ok(killed, 'the gateway was killed during the load');
    const answered = results.filter((r) => r.status === 200).length;
    t.ok(answered >= 60, `${answered} calls were answered 200 before the kill`);

    const store = await open();
    const rep = await reconcile(store.db);
    t.same(rep.mismatches, [], 'reconcile: every balance equals its ledger, every held its holds');
    const user = await store.db
      .selectFrom('users')
      .select(['balance', 'held'])
      .where('id', '=', u.userId)
      .executeTakeFirstOrThrow();
    const charges = await store.db
      .selectFrom('ledger')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('user_id', '=', u.userId)
      .where('kind', '=', 'charge')
      .executeTakeFirstOrThrow();
    const n = Number(charges.n);
    t.ok(n >= answered, `every answered call has its charge row (${n} rows, ${answered} answered)`);
    t.same(
      user,
      { balance: 100_000_000 - n * 10_000, held: 0 },
      'balance is the grant minus the committed charges; nothing held',
    );
    t.equal(
      Number((await sql<{ n: number }>`select count(*) as n from holds`.execute(store.db)).rows[0].n),
      0,
      'no hold row',
    );
    await store.close();

    const second = await startGateway(env);
    gateways.push(second);
    const res = await fetch(`http://127.0.0.1:${second.port}/api/echo?msg=after`, { headers: { 'X-API-Key': u.key } });
    const body = (await res.json()) as { deducted: number; remaining: number };
    t.equal(res.status, 200);
    t.equal(body.deducted, 0.01);
    t.equal(
      body.remaining,
      (100_000_000 - (n + 1) * 10_000) / 1_000_000,
      'the restarted process reserves against the committed balance',
    );
    await second.stop();
  },
);
