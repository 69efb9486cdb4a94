// What a billed call costs Redis, counted on the wire: Redis runs behind test/helpers/fault-proxy.ts, which shows
// every chunk the gateway sends. A chunk is one round trip; the commands in it are read from the RESP arrays. A
// billed call takes at most 2 round trips, each a call of the turn's script shared with the other calls of its
// event-loop turn: the admission (rate-limit token, in-flight slot and, for a cacheable operation, the cache read)
// and, at the end, the slot's release with the fresh result for the shared cache tier. A call of a configured upstream adds nothing once its worker found the
// upstream clean (core/state/upstream-health.ts, CLEAN_MS).
import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import nock from 'nock';
import t from 'tap';
import { TURN } from '../../core/state/redis-scripts.js';
import { createTestApp, type TestApp } from '../helpers/create-test-app.js';
import { type FaultProxy, startFaultProxy } from '../helpers/fault-proxy.js';
import { ID_FIELD, itemUpstream, itemYaml } from '../plugins/http/support.js';
import { freshPgRedis, REDIS_URL, unreachable } from '../scale/backend.js';

/** The commands (each its arguments, the name first) of the RESP arrays in one chunk a client sent. */
function commandsIn(chunk: Buffer): string[][] {
  const commands: string[][] = [];
  let i = 0;
  const line = (): string => {
    const end = chunk.indexOf('\r\n', i);
    const text = chunk.toString('latin1', i, end < 0 ? chunk.length : end);
    i = end < 0 ? chunk.length : end + 2;
    return text;
  };
  while (i < chunk.length) {
    const head = line();
    if (!head.startsWith('*')) break;
    const parts = Number(head.slice(1));
    const args: string[] = [];
    for (let j = 0; j < parts && i < chunk.length; j++) {
      const len = Number(line().slice(1));
      args.push(chunk.toString('latin1', i, i + len));
      i += len + 2;
    }
    commands.push(args);
  }
  return commands;
}

const TURN_SHA = createHash('sha1').update(TURN).digest('hex');

/**
 * A command as the counts read it: a call of the turn's script (core/state/redis-turn.ts) by what it carries, in
 * its order — `release` (+`set` of the cache entry), `admit` (+`get` of the cache entry) — any other by its name.
 */
function named([name, ...args]: string[]): string {
  const command = (name ?? '').toLowerCase();
  if (!((command === 'evalsha' && args[0] === TURN_SHA) || (command === 'eval' && args[0] === TURN))) return command;
  const argv = args.slice(2 + Number(args[1]));
  const parts: string[] = [];
  let v = 2;
  for (let r = 0; r < Number(argv[0]); r++, v += 4) parts.push(argv[v + 1] === '1' ? 'release+set' : 'release');
  for (let a = 0; a < Number(argv[1]); a++, v += 6) parts.push(argv[v + 5] === '1' ? 'admit+get' : 'admit');
  return `turn(${parts.join(', ')})`;
}

const pause = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

const skip = await unreachable();
if (skip) t.plan(0, skip);
else {
  const backend = await freshPgRedis(); // only its Redis key prefix (removed on close) is used here
  const proxy: FaultProxy = await startFaultProxy(new URL(REDIS_URL).hostname, Number(new URL(REDIS_URL).port || 6379));
  const h: TestApp = await createTestApp({
    settings: {
      redisUrl: proxy.url(REDIS_URL),
      redisPrefix: backend.prefix,
      // Longer than any slot's TTL: no lease renewals in the counts.
      slotLeaseMs: 200_000,
      rateLimitPerSecond: 10_000,
      rateLimitBurst: 10_000,
    },
  });
  // A second gateway on the same Redis, selling `item` from one configured upstream (nock answers it).
  nock.disableNetConnect();
  const up: TestApp = await createTestApp({
    operationsYaml: itemYaml(ID_FIELD, itemUpstream('alpha', '', '', `\n        result: '{ "id": body.id }'`)),
    pluginDirs: [resolve('plugins')],
    settings: { redisUrl: proxy.url(REDIS_URL), redisPrefix: backend.prefix, slotLeaseMs: 200_000 },
  });
  t.teardown(async () => {
    nock.cleanAll();
    await up.close();
    await h.close();
    await proxy.close();
    await backend.close();
  });
  const trips: string[][] = [];
  proxy.watch((chunk) => trips.push(commandsIn(chunk).map(named)));

  /** One call (to `app`) and the round trips it took, including what it sends after the answer. */
  const counted = async (
    path: string,
    key: string,
    app: TestApp = h,
    // biome-ignore lint/suspicious/noExplicitAny: test convenience: assertions read body fields freely
  ): Promise<{ status: number; body: any; trips: string[][] }> => {
    await pause(100);
    trips.length = 0;
    const res = await app.client.get(path, { 'X-API-Key': key });
    await pause(150);
    return { status: res.status, body: res.body, trips: [...trips] };
  };

  const u = await h.user('1');
  t.before(async () => {
    // The first calls load the scripts (NOSCRIPT, then EVAL): not what a call costs from then on.
    for (const path of ['/api/echo_cached?msg=warm', '/api/echo?msg=warm']) {
      if ((await counted(path, u.key)).status !== 200) throw new Error(`warm-up ${path} failed`);
    }
  });

  t.test('a billed miss of a cacheable operation: 2 round trips', async (t) => {
    const miss = await counted('/api/echo_cached?msg=miss', u.key);
    t.match(miss, { status: 200 });
    t.match(miss.body, { success: true, cached: false, deducted: 0.01 });
    t.same(
      miss.trips,
      [['turn(admit+get)'], ['turn(release+set)']],
      'admission with the cache read; the slot release with the cache write',
    );
  });

  t.test('a billed hit from the shared tier: 2 round trips', async (t) => {
    t.equal((await counted('/api/echo_cached?msg=shared', u.key)).status, 200);
    await pause(2100); // this process's own tier (2 s) has let it go: the hit comes from Redis
    const hit = await counted('/api/echo_cached?msg=shared', u.key);
    t.match(hit.body, { success: true, cached: true, deducted: 0.01, data: { input: { msg: 'shared' } } });
    t.same(hit.trips, [['turn(admit+get)'], ['turn(release)']]);
  });

  t.test("a billed hit from this process's tier: 2 round trips, no cache read in Redis", async (t) => {
    t.equal((await counted('/api/echo_cached?msg=near', u.key)).status, 200);
    const hit = await counted('/api/echo_cached?msg=near', u.key);
    t.match(hit.body, { success: true, cached: true, deducted: 0.01 });
    t.same(hit.trips, [['turn(admit)'], ['turn(release)']]);
  });

  t.test('a billed call of an operation without a cache: 2 round trips', async (t) => {
    const call = await counted('/api/echo?msg=plain', u.key);
    t.match(call.body, { success: true, deducted: 0.01 });
    t.same(call.trips, [['turn(admit)'], ['turn(release)']]);
  });

  t.test("a configured upstream's call: 2 round trips once its worker found the upstream clean", async (t) => {
    const v = await up.user('1');
    for (const id of ['a1', 'a2', 'a3']) nock('https://alpha.example.com').get(`/v1/items/${id}`).reply(200, { id });
    const first = await counted('/api/item?id=a1', v.key, up);
    t.match(first, { status: 200, body: { success: true, data: { id: 'a1' }, deducted: 0.01 } });
    t.ok(
      first.trips.flat().filter((c) => c === 'get').length >= 2,
      `the first call reads the upstream's health: ${JSON.stringify(first.trips)}`,
    );
    for (const id of ['a2', 'a3']) {
      const next = await counted(`/api/item?id=${id}`, v.key, up);
      t.match(next, { status: 200, body: { success: true, data: { id }, deducted: 0.01 } });
      t.same(next.trips, [['turn(admit)'], ['turn(release)']], 'the admission and the release, nothing for the health');
    }
    await up.assertReconciled();
    t.same(await up.balance(v.userId), { balance: 1_000_000 - 3 * 10_000, held: 0 });
  });

  t.test('the balance is exact after all of them', async (t) => {
    await h.assertReconciled();
    t.same(await h.balance(u.userId), { balance: 1_000_000 - 8 * 10_000, held: 0 });
  });
}
