// SharedState for a single process. Also the fallback a Redis-backed process degrades to while Redis is down.
// Everything here answers at once, without a promise (MaybePromise, shared-state.ts).
import { LRUCache } from 'lru-cache';
import type { RateDecision, SharedState } from './shared-state.js';
import { type Bucket, takeFromBucket } from './token-bucket.js';

export function createMemoryState(cacheEntries = 10_000): SharedState {
  const buckets = new LRUCache<string, Bucket>({ max: 100_000 });
  const slots = new Map<string, Map<string, number>>();
  const counters = new Map<string, { value: number; expiresMs: number }>();
  const cache = new LRUCache<string, string>({ max: cacheEntries, ttlAutopurge: false });
  const listeners: Array<(userId: number) => void> = [];
  /** Slot tokens only need to differ within this process; a counter is cheaper than a random UUID per call. */
  let lastSlot = 0;

  const add = (key: string, by: number, ttlSeconds: number): number => {
    const now = Date.now();
    const c = counters.get(key);
    const live = c && c.expiresMs > now ? c : { value: 0, expiresMs: now + ttlSeconds * 1000 };
    live.value += by;
    counters.set(key, live);
    return live.value;
  };

  const liveSlots = (scope: string, now: number): Map<string, number> => {
    let held = slots.get(scope);
    if (!held) slots.set(scope, (held = new Map()));
    for (const [token, expires] of held) if (expires <= now) held.delete(token);
    return held;
  };

  const take = (key: string, rate: number, burst: number): RateDecision => {
    const { bucket, decision } = takeFromBucket(buckets.get(key), rate, burst, Date.now());
    buckets.set(key, bucket);
    return decision;
  };

  const acquire = (scope: string, limit: number, ttlMs: number): string | null => {
    const now = Date.now();
    const held = liveSlots(scope, now);
    if (held.size >= limit) return null;
    const token = `s${++lastSlot}`;
    held.set(token, now + ttlMs);
    return token;
  };

  return {
    takeToken(key, rate, burst) {
      return take(key, rate, burst);
    },
    admit(key, rate, burst, scope, limit, ttlMs, cacheKey) {
      const decision = take(key, rate, burst);
      const slot = decision.allowed ? acquire(scope, limit, ttlMs) : null;
      return { rate: decision, slot, cached: slot && cacheKey !== undefined ? cache.get(cacheKey) : undefined };
    },
    acquireSlot(scope, limit, ttlMs) {
      return acquire(scope, limit, ttlMs);
    },
    releaseSlot(scope, token) {
      const held = slots.get(scope);
      held?.delete(token);
      if (held?.size === 0) slots.delete(scope);
    },
    incr(key, by, ttlSeconds) {
      return add(key, by, ttlSeconds);
    },
    giveBack(key, by, ttlSeconds) {
      add(key, -by, ttlSeconds);
    },
    initCounter(key, value, ttlSeconds) {
      const c = counters.get(key);
      if (!c || c.expiresMs <= Date.now()) counters.set(key, { value, expiresMs: Date.now() + ttlSeconds * 1000 });
    },
    get(key) {
      const c = counters.get(key);
      return c && c.expiresMs > Date.now() ? c.value : null;
    },
    cacheGet(key) {
      return cache.get(key);
    },
    cacheSet(key, value, ttlSeconds) {
      cache.set(key, value, { ttl: ttlSeconds * 1000 });
    },
    cacheSetHere(key, value, ttlSeconds) {
      cache.set(key, value, { ttl: ttlSeconds * 1000 });
    },
    async publishRevocation(userId) {
      for (const l of listeners) l(userId);
    },
    onRevocation(listener) {
      listeners.push(listener);
    },
    async health() {
      return { backend: 'memory', ok: true };
    },
    async close() {
      cache.clear();
    },
  };
}
