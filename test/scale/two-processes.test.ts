// Two real gateway processes on one PostgreSQL schema and one Redis prefix: billing stays exact when calls for
// one user land on both at once, and a plan's free concurrency is one limit across both.

import { Redis } from 'ioredis';
import { sql } from 'kysely';
import t from 'tap';
import { freshPgRedis, REDIS_URL, unreachable } from './backend.js';
import {
  call,
  countBy,
  type Gateway,
  gatewayEnv,
  load,
  openTestStore,
  runCli,
  scaleOperationsFile,
  seedUser,
  startGateway,
} from './support.js';

const why = await unreachable();
if (why) {
  console.log(`# scale-out two-processes: skipped, ${why}`);
  t.plan(0, `scale-out two-processes: skipped, ${why}`);
} else {
  const backend = await freshPgRedis();
  const store = await openTestStore(backend.schema);
  // This file races money and a shared limit, not outages: on a machine starved by other suites a Redis reply
  // later than the default 250 ms deadline opens a process's breaker, and its limits go per process (documented,
  // and tested in redis-outage-cap.test.ts), which would let a wave take more than 3 free slots across both.
  const env = gatewayEnv(backend.schema, backend.prefix, scaleOperationsFile(), { REDIS_COMMAND_TIMEOUT_MS: '10000' });
  const redis = new Redis(REDIS_URL);
  const gateways: Gateway[] = [];
  t.teardown(async () => {
    redis.disconnect();
    await Promise.all(gateways.map((g) => g.stop()));
    await store.close();
    await backend.close();
  });
  // Start one first: it runs the migrations; the second then finds them applied.
  gateways.push(await startGateway(env));
  gateways.push(await startGateway(env));
  const [a, b] = gateways as [Gateway, Gateway];

  // The same race for a call that holds before its plugin (echo reaches the network) and for one charged in one
  // step after it (lookup: the phone plugin, offline; docs/billing.md).
  for (const [path, how] of [
    ['/api/echo?msg=x', 'a hold before the plugin'],
    ['/api/lookup?phone=13800138000', 'an offline plugin charged in one step after it ran'],
  ]) {
    t.test(
      `2,000 calls across both processes against a balance of exactly 500 (${how}): 500 succeed, balance 0`,
      async (t) => {
        const u = await seedUser(store, '5');
        const started = Date.now();
        const results = await load(2000, 50, (i) => (i % 2 ? b.port : a.port), path, u.key);
        t.comment(`2,000 calls in ${Date.now() - started} ms: ${JSON.stringify(countBy(results))}`);
        t.same(countBy(results), { 200: 500, 402: 1500 });
        t.ok(
          results.filter((r) => r.status === 200).every((r) => r.deducted === 0.01),
          'every success deducted 0.01',
        );
        t.ok(
          new Set(results.filter((r) => r.status === 200).map((r) => r.port)).size === 2,
          'both processes charged calls',
        );
        const user = await store.db
          .selectFrom('users')
          .select(['balance', 'held'])
          .where('id', '=', u.userId)
          .executeTakeFirstOrThrow();
        t.same(user, { balance: 0, held: 0 });
        const charges = await store.db
          .selectFrom('ledger')
          .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.sum<number>('amount').as('sum')])
          .where('user_id', '=', u.userId)
          .where('kind', '=', 'charge')
          .executeTakeFirstOrThrow();
        t.same(charges, { n: 500, sum: -5_000_000 }, '500 charge rows of 0.01, exact integers from PostgreSQL');
        const logged = await store.db
          .selectFrom('call_log')
          .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.sum<number>('charged').as('charged')])
          .where('user_id', '=', u.userId)
          .where('status', '=', 200)
          .executeTakeFirstOrThrow();
        t.same(logged, { n: 500, charged: 5_000_000 }, 'one call-log row per charge, committed with it');
        const holds = await store.db
          .selectFrom('holds')
          .select(sql<number>`count(*)`.as('n'))
          .executeTakeFirstOrThrow();
        t.equal(holds.n, 0, 'no hold left');
        const rec = await runCli(env, ['reconcile']);
        t.equal(rec.code, 0, `reconcile exits 0\n${rec.output}`);
      },
    );
  }

  t.test('a plan with concurrency 3: never more than 3 free calls in flight across both processes', async (t) => {
    const u = await seedUser(store, '10', 'conc3');
    // A wave's slots are given back as its calls end, each in a Redis write of its own gateway's; the next wave
    // starts once none is left (else a release still on its way makes that wave's calls charged, not free).
    const slots = `${backend.prefix}slot:plan-slot:${u.userId}`;
    const slotsHeld = async (): Promise<number> => {
      const [sec] = (await redis.time()) as [string | number, string | number];
      return redis.zcount(slots, `(${Number(sec) * 1000}`, '+inf');
    };
    let freeTotal = 0;
    for (let wave = 0; wave < 4; wave++) {
      for (let i = 0; i < 500 && (await slotsHeld()) > 0; i++) await new Promise((r) => setTimeout(r, 10));
      t.equal(await slotsHeld(), 0, `wave ${wave}: no plan slot held before it`);
      // Eight calls that each spin 400 ms, sent at once, four to each process: they all overlap, so the
      // free ones are exactly the ones holding a plan slot at the same time.
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) => call(i % 2 ? b.port : a.port, '/api/echo?spinMs=400', u.key)),
      );
      const free = results.filter((r) => r.status === 200 && r.deducted === 0).length;
      const charged = results.filter((r) => r.status === 200 && r.deducted === 0.01).length;
      t.equal(free + charged, 8, `wave ${wave}: every call succeeded (${JSON.stringify(countBy(results))})`);
      t.ok(free <= 3 && free >= 1, `wave ${wave}: ${free} free calls in flight at once (limit 3)`, {
        // What the gateways logged (warnings and up), to tell a breaker that opened from a limit that failed.
        logged: gateways.map((g) => g.output().slice(-2000)),
      });
      freeTotal += free;
    }
    t.ok(freeTotal >= 4, `free calls were granted (${freeTotal} over 4 waves)`);
    const rec = await runCli(env, ['reconcile']);
    t.equal(rec.code, 0, 'reconcile exits 0');
  });

  t.test('/api/health on both reports Redis and PostgreSQL ok', async (t) => {
    for (const g of [a, b]) {
      const body = (await (await fetch(`http://127.0.0.1:${g.port}/api/health`)).json()) as {
        status: string;
        database: { dialect: string };
        state: { backend: string };
      };
      t.match(body, { status: 'ok', database: { dialect: 'postgres' }, state: { backend: 'redis' } });
    }
  });
}
