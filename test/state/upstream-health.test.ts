// Upstream health (core/state/upstream-health.ts) on the memory state and, shared by two processes' worth of
// state, on the local Redis (REDIS_URL, default redis://127.0.0.1:6379; skipped when unreachable), with a key
// prefix of its own. Also the order of attempts: tiers by priority, weights within a tier.
import { randomBytes } from 'node:crypto';
import t from 'tap';
import type { UpstreamConfig } from '../../core/config/upstream-config.js';
import { createMemoryLogger } from '../../core/kernel/logger.js';
import { attemptOrder } from '../../core/pipeline/upstreams.js';
import { createMemoryState } from '../../core/state/memory-state.js';
import { createRedisState } from '../../core/state/redis-state.js';
import type { SharedState } from '../../core/state/shared-state.js';
import { CLEAN_MS, createUpstreamHealth } from '../../core/state/upstream-health.js';

t.test(
  'memory: consecutive failures open the circuit, one trial after the cool-down, a success closes it',
  async (t) => {
    let now = 1_000_000;
    const h = createUpstreamHealth(createMemoryState(), () => now);
    t.equal(await h.failed('op', 'a', 3, 10, 'HTTP 500'), false);
    t.equal(await h.failed('op', 'a', 3, 10, 'HTTP 500'), false);
    await h.succeeded('op', 'a'); // the run is broken
    t.equal(await h.failed('op', 'a', 3, 10, 'HTTP 500'), false);
    t.equal(await h.failed('op', 'a', 3, 10, 'HTTP 500'), false);
    t.equal(await h.failed('op', 'a', 3, 10, 'HTTP 500'), true);
    t.equal(await h.admit('op', 'a'), false);
    t.same(await h.down('op', 'a'), { until: now + 10_000, reason: 'HTTP 500', kind: 'circuit' });
    t.equal(await h.admit('op', 'b'), true, 'other upstreams are not affected');
    now += 10_001;
    t.equal(await h.admit('op', 'a'), true, 'the trial');
    t.equal(await h.admit('op', 'a'), false, 'only one trial');
    t.equal(await h.failed('op', 'a', 3, 10, 'HTTP 500'), true, 'a failed trial opens it again');
    t.equal(await h.admit('op', 'a'), false);
    now += 10_001;
    t.equal(await h.admit('op', 'a'), true);
    await h.succeeded('op', 'a');
    t.equal(await h.admit('op', 'a'), true);
    t.equal(await h.down('op', 'a'), null);
    t.equal(await h.failed('op', 'a', 3, 10, 'x'), false, 'the count started over');
  },
);

t.test('memory: markDown and markUp', async (t) => {
  const h = createUpstreamHealth(createMemoryState());
  await h.markDown('op', 'a', 600, 'credential refused');
  t.equal(await h.admit('op', 'a'), false);
  t.match(await h.down('op', 'a'), { reason: 'credential refused' });
  await h.markUp('op', 'a');
  t.equal(await h.admit('op', 'a'), true);
});

t.test('memory: disable says true only on the change into disabled; markUp makes the next one news', async (t) => {
  const h = createUpstreamHealth(createMemoryState());
  t.equal(await h.disable('op', 'a', 600, 'bad key'), true);
  t.equal(await h.disable('op', 'a', 600, 'bad key'), false, 'again while disabled: no news');
  t.match(await h.down('op', 'a'), { reason: 'bad key', kind: 'disabled' });
  t.equal(await h.disable('op', 'b', 600, 'bad key'), true, 'another upstream is news');
  await h.markUp('op', 'a');
  t.equal(await h.down('op', 'a'), null);
  t.equal(await h.disable('op', 'a', 600, 'quota'), true);
  await h.noteError('op', 'a', 'UPSTREAM_TIMEOUT');
  t.match(await h.lastError('op', 'a'), { code: 'UPSTREAM_TIMEOUT', at: Number });
  t.equal(await h.lastError('op', 'c'), null);
});

/** The memory state with its reads and writes counted: what a Redis state would send as round trips. */
function countedState(): { state: SharedState; counts: { reads: number; writes: number } } {
  const inner = createMemoryState();
  const counts = { reads: 0, writes: 0 };
  const state: SharedState = Object.create(inner);
  state.cacheGet = (key) => (counts.reads++, inner.cacheGet(key));
  state.get = (key) => (counts.reads++, inner.get(key));
  state.cacheSet = (key, value, ttl) => (counts.writes++, inner.cacheSet(key, value, ttl));
  state.incr = (key, by, ttl) => (counts.writes++, inner.incr(key, by, ttl));
  return { state, counts };
}

t.test('a clean upstream is admitted and closed without asking the state, for CLEAN_MS', async (t) => {
  let now = 1_000_000;
  const { state, counts } = countedState();
  const h = createUpstreamHealth(state, () => now);
  t.equal(await h.admit('op', 'a'), true);
  t.same(counts, { reads: 1, writes: 0 }, 'not known yet: the down mark is read');
  await h.succeeded('op', 'a');
  t.same(counts, { reads: 3, writes: 0 }, 'the first success reads the mark and the failure count, writes nothing');
  for (let i = 0; i < 100; i++) {
    const admitted = h.admit('op', 'a');
    t.equal(admitted, true, 'without a promise');
    t.equal(h.succeeded('op', 'a'), undefined, 'without a promise');
  }
  t.same(counts, { reads: 3, writes: 0 }, '100 more calls asked nothing');
  now += CLEAN_MS;
  t.equal(await h.admit('op', 'a'), true);
  t.same(counts, { reads: 4, writes: 0 }, 'after CLEAN_MS the mark is read again');
});

t.test('a failure forgets the clean upstream at once: the circuit opens on the usual count', async (t) => {
  const now = 1_000_000;
  const h = createUpstreamHealth(createMemoryState(), () => now);
  await h.succeeded('op', 'a');
  t.equal(h.admit('op', 'a'), true);
  t.equal(await h.failed('op', 'a', 2, 30, 'HTTP 502'), false);
  t.equal(await h.failed('op', 'a', 2, 30, 'HTTP 502'), true);
  t.equal(await h.admit('op', 'a'), false, 'open at once, though CLEAN_MS has not passed');
  // A success that was reading while a failure came in does not mark it clean.
  const h2 = createUpstreamHealth(createMemoryState(), () => now);
  const closing = h2.succeeded('op', 'b');
  await h2.failed('op', 'b', 1, 30, 'timeout');
  await closing;
  t.equal(await h2.admit('op', 'b'), false, 'the failure counted after the success stands');
  for (const [what, mark] of [
    ['disable', (h: ReturnType<typeof createUpstreamHealth>) => h.disable('op', 'c', 60, 'bad key')],
    ['markDown', (h: ReturnType<typeof createUpstreamHealth>) => h.markDown('op', 'c', 60, 'canary failed')],
  ] as const) {
    const h3 = createUpstreamHealth(createMemoryState(), () => now);
    await h3.succeeded('op', 'c');
    await mark(h3);
    t.equal(await h3.admit('op', 'c'), false, `${what} in this process: out at once`);
  }
});

t.test("another process's mark is seen within CLEAN_MS by a process that found the upstream clean", async (t) => {
  let now = 1_000_000;
  const shared = createMemoryState();
  const a = createUpstreamHealth(shared, () => now);
  const b = createUpstreamHealth(shared, () => now);
  await a.succeeded('op', 'x');
  await b.markDown('op', 'x', 600, 'canary failed');
  t.equal(await b.admit('op', 'x'), false);
  t.equal(await a.admit('op', 'x'), true, 'still clean here: the bound');
  now += CLEAN_MS;
  t.equal(await a.admit('op', 'x'), false, 'seen once CLEAN_MS passed');
});

const tick = (): Promise<void> => new Promise((r) => setTimeout(r, 10));

t.test('redis: two processes share the state', async (t) => {
  const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const prefix = `tgtest:uh:${randomBytes(6).toString('hex')}:`;
  const make = (): Promise<SharedState> =>
    createRedisState({
      url,
      prefix,
      logger: createMemoryLogger(),
      slotLeaseMs: 5000,
      frontCacheMs: 1,
      connectWaitMs: 1000,
    });
  const [s1, s2] = await Promise.all([make(), make()]);
  t.teardown(async () => {
    await s1.close();
    await s2.close();
  });
  if ((await s1.health()).degraded) {
    t.comment('Redis is not reachable: skipped');
    return;
  }
  let now = 5_000_000;
  const a = createUpstreamHealth(s1, () => now);
  const b = createUpstreamHealth(s2, () => now);
  t.equal(await a.failed('op', 'x', 2, 30, 'timeout'), false);
  t.equal(await b.failed('op', 'x', 2, 30, 'timeout'), true, 'the count is shared');
  t.equal(await a.admit('op', 'x'), false);
  t.equal(await b.admit('op', 'x'), false);
  now += 30_001;
  const trials = await Promise.all([a.admit('op', 'x'), b.admit('op', 'x')]);
  t.same(trials.sort(), [false, true], 'one trial across both');
  await b.succeeded('op', 'x');
  // Each process keeps what it read for the front cache's time (2 s by default; 1 ms here).
  await tick();
  t.equal(await a.admit('op', 'x'), true);
  await a.markDown('op', 'y', 60, 'quota');
  t.equal(await b.admit('op', 'y'), false);
  await b.markUp('op', 'y');
  await tick();
  t.equal(await a.admit('op', 'y'), true);
});

const u = (id: string, priority: number, weight: number): UpstreamConfig =>
  ({ id, priority, weight, missing: [] }) as unknown as UpstreamConfig;

t.test('attempt order: tiers by priority, weights within a tier, upstreams missing secrets left out', async (t) => {
  const list = [u('c', 2, 1), u('a', 1, 3), u('b', 1, 1), { ...u('d', 1, 5), missing: ['D_KEY'] }, u('z', 1, 0)];
  t.same(
    attemptOrder(list, () => 0).map((x) => x.id),
    ['a', 'b', 'z', 'c'],
  );
  t.same(
    attemptOrder(list, () => 0.99).map((x) => x.id),
    ['b', 'a', 'z', 'c'],
  );
  // a has weight 3 of 4: first in ~3/4 of the draws.
  let seed = 7;
  const rand = () => ((seed = (seed * 16807) % 2147483647) - 1) / 2147483646;
  let first = 0;
  for (let i = 0; i < 4000; i++) if (attemptOrder(list, rand)[0].id === 'a') first++;
  t.ok(first > 2800 && first < 3200, `a first ${first} of 4000`);
});
