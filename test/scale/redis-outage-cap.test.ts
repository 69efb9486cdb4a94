// F7 on two real gateway processes (PostgreSQL + Redis, Redis behind test/helpers/fault-proxy.ts), the audit's
// reproduction: a key with a daily spending cap of 0.05 spends 0.02 with Redis up; Redis goes away and calls land
// on both processes; Redis comes back. Before, each process counted on its own during the outage and Redis never
// learnt of it (1.8x the cap). Now capped calls are refused (503, uncharged) during the outage, and afterwards
// exactly the rest of the cap is spent across both processes: never more.
import t from 'tap';
import { createApiKey } from '../../core/accounts/api-keys.js';
import { createUser } from '../../core/accounts/users.js';
import { postEntry } from '../../core/billing/ledger.js';
import { startFaultProxy } from '../helpers/fault-proxy.js';
import { freshPgRedis, REDIS_URL, unreachable } from './backend.js';
import {
  call,
  countBy,
  type Gateway,
  gatewayEnv,
  openTestStore,
  runCli,
  scaleOperationsFile,
  startGateway,
} from './support.js';

const why = await unreachable();
if (why) t.plan(0, `redis-outage-cap: skipped, ${why}`);
else {
  const backend = await freshPgRedis();
  const store = await openTestStore(backend.schema);
  const redis = new URL(REDIS_URL);
  const proxy = await startFaultProxy(redis.hostname, Number(redis.port || 6379));
  const env = gatewayEnv(backend.schema, backend.prefix, scaleOperationsFile(), {
    REDIS_URL: proxy.url(REDIS_URL),
    REDIS_COMMAND_TIMEOUT_MS: '200',
  });
  const gateways: Gateway[] = [];
  t.teardown(async () => {
    proxy.setMode('pass');
    await Promise.all(gateways.map((g) => g.stop()));
    await proxy.close();
    await store.close();
    await backend.close();
  });
  gateways.push(await startGateway(env));
  gateways.push(await startGateway(env));
  const ports = gateways.map((g) => g.port);

  const healthy = async (port: number): Promise<boolean> => {
    for (let i = 0; i < 50; i++) {
      const body = (await (await fetch(`http://127.0.0.1:${port}/api/health`)).json()) as { status: string };
      if (body.status === 'ok') return true;
      await new Promise((r) => setTimeout(r, 100));
    }
    return false;
  };

  t.test('a 0.05 daily cap across an outage on two processes: exactly 0.05 spent', async (t) => {
    const user = await createUser(store.db, `cap-${Date.now()}@example.com`, 'password123', 'user');
    await postEntry(store.db, { userId: user.id, amount: 1_000_000, kind: 'grant', ref: `cap-grant:${user.id}` });
    const { secret } = await createApiKey(store.db, user.id, 'capped', {
      daily_spend_cap: 50_000,
      rate_limit_per_sec: 100_000,
      rate_limit_burst: 100_000,
    });

    const up = await Promise.all([0, 1].map((i) => call(ports[i % 2]!, `/api/echo?msg=up${i}`, secret)));
    t.same(countBy(up), { 200: 2 });

    proxy.setMode('drop');
    const down = [];
    for (let i = 0; i < 10; i++) down.push(await call(ports[i % 2]!, `/api/echo?msg=down${i}`, secret));
    t.same(countBy(down), { 503: 10 }, 'refused on both processes, not counted per process');
    t.ok(
      down.every((r) => r.deducted === 0),
      'nothing charged',
    );

    proxy.setMode('pass');
    for (const p of ports) t.ok(await healthy(p), `process on ${p} back to ok`);
    const back = [];
    for (let i = 0; i < 10; i++) back.push(await call(ports[i % 2]!, `/api/echo?msg=back${i}`, secret));
    t.same(countBy(back), { 200: 3, 402: 7 }, 'exactly the rest of the cap');

    const spent = await store.db
      .selectFrom('ledger')
      .select((eb) => eb.fn.sum<number>('amount').as('s'))
      .where('user_id', '=', user.id)
      .where('kind', '=', 'charge')
      .executeTakeFirstOrThrow();
    t.equal(-Number(spent.s), 50_000, 'charged exactly the cap');
    const rec = await runCli(env, ['reconcile']);
    t.equal(rec.code, 0, rec.output);
  });
}
