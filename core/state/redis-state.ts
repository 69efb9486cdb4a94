// SharedState in Redis (REDIS_URL): one truth for rate limits, in-flight slots, plan counters, the shared cache
// tier and revocations across any number of gateway processes. Money never lives here: a Redis restart loses
// limits and cache, never balance. While Redis is unreachable every call falls back to an embedded memory
// state (per-process limits), a warning is logged once per outage and health() reports degraded.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import type { Logger } from '../http/logger.js';
import type { SharedState, StateHealth } from './shared-state.js';
import { createMemoryState } from './memory-state.js';
import { takeFromBucket } from './token-bucket.js';
import { ACQUIRE_SLOT, INCR, RENEW_SLOTS, TAKE_TOKEN, scriptRunner } from './redis-scripts.js';
import { createSlotLeases } from './slot-leases.js';

export interface RedisStateOptions {
  url: string;
  /** Prefix of every key and channel (REDIS_PREFIX). */
  prefix: string;
  logger: Logger;
  /** A slot lives this long unless its process renews it: a dead process's slots free within it. */
  slotLeaseMs: number;
  /** TTL of the in-process first cache tier in front of Redis. */
  frontCacheMs?: number;
  /** How long start-up waits for Redis before starting degraded. */
  connectWaitMs?: number;
}

/** Errors Redis itself answered (a script bug, a wrong type) are bugs; anything else means Redis is unreachable. */
function isReplyError(err: unknown): boolean {
  return (err as Error | undefined)?.name === 'ReplyError';
}

export async function createRedisState(opts: RedisStateOptions): Promise<SharedState> {
  const { prefix, logger } = opts;
  const frontMs = opts.frontCacheMs ?? 2000;
  const redisOpts = {
    // Fail fast instead of queueing while disconnected: the caller falls back to per-process limits at once.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: 1000,
    connectTimeout: 2000,
    retryStrategy: (times: number) => Math.min(times * 200, 1000),
  };
  const redis = new Redis(opts.url, redisOpts);
  // The subscriber queues its SUBSCRIBE until connected and re-subscribes after every reconnect.
  const sub = new Redis(opts.url, { ...redisOpts, enableOfflineQueue: true, commandTimeout: undefined });
  const fallback = createMemoryState();
  const front = new LRUCache<string, string>({ max: 10_000, ttl: frontMs });
  const listeners: Array<(userId: number) => void> = [];
  const channel = `${prefix}revocations`;
  const take = scriptRunner(redis, TAKE_TOKEN);
  const acquire = scriptRunner(redis, ACQUIRE_SLOT);
  const incrScript = scriptRunner(redis, INCR);
  const leases = createSlotLeases(scriptRunner(redis, RENEW_SLOTS), opts.slotLeaseMs, () => redis.status === 'ready');

  let outage: string | null = null;
  let closing = false;
  const markDown = (reason: string): void => {
    if (outage || closing) return;
    outage = reason;
    logger.warn('Redis unreachable: limits, counters and cache are per process until it returns', { reason });
  };
  redis.on('error', (err: Error) => markDown(err.message));
  redis.on('close', () => markDown('connection closed'));
  redis.on('ready', () => {
    if (outage) logger.info('Redis is back: shared limits restored', { outage });
    outage = null;
  });
  sub.on('error', () => undefined); // reported through the main connection
  sub.on('message', (_channel: string, message: string) => {
    const userId = Number(message);
    if (Number.isSafeInteger(userId)) for (const l of listeners) l(userId);
  });
  void sub.subscribe(channel).catch(() => undefined);

  /** Run against Redis when it is up; otherwise (or when the connection fails mid-command) in memory. */
  const run = async <T>(viaRedis: () => Promise<T>, viaMemory: () => Promise<T>): Promise<T> => {
    if (redis.status !== 'ready') {
      markDown(`connection ${redis.status}`);
      return viaMemory();
    }
    try {
      return await viaRedis();
    } catch (err) {
      if (isReplyError(err)) throw err;
      markDown((err as Error).message);
      return viaMemory();
    }
  };

  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, opts.connectWaitMs ?? 2000);
    redis.once('ready', () => (clearTimeout(timer), resolve()));
  });
  if (redis.status !== 'ready') markDown(`no connection to ${opts.url.replace(/\/\/[^@]*@/, '//***@')} at start`);

  const k = (key: string): string => `${prefix}${key}`;

  return {
    takeToken: (bucket, rate, burst) =>
      run(
        async () => {
          const before = Number(await take([k(bucket)], [rate, burst]));
          // Same arithmetic as the memory state: feed the refilled count in with no elapsed time.
          return takeFromBucket({ tokens: before, updatedMs: 0 }, rate, burst, 0).decision;
        },
        () => fallback.takeToken(bucket, rate, burst),
      ),
    acquireSlot: (scope, limit, ttlMs) =>
      run(
        async () => {
          const token = randomUUID();
          const key = k(`slot:${scope}`);
          const lease = Math.min(opts.slotLeaseMs, ttlMs);
          if (Number(await acquire([key], [limit, lease, token])) !== 1) return null;
          if (lease < ttlMs) leases.hold(key, token, ttlMs);
          return `r:${token}`;
        },
        async () => {
          const token = await fallback.acquireSlot(scope, limit, ttlMs);
          return token && `m:${token}`;
        },
      ),
    async releaseSlot(scope, token) {
      if (token.startsWith('m:')) return fallback.releaseSlot(scope, token.slice(2));
      const key = k(`slot:${scope}`);
      leases.drop(key, token.slice(2));
      // If Redis is unreachable the slot simply expires with its lease.
      await redis.zrem(key, token.slice(2)).catch((err: Error) => markDown(err.message));
    },
    incr: (key, by, ttlSeconds) =>
      run(
        async () => Number(await incrScript([k(key)], [by, ttlSeconds])),
        () => fallback.incr(key, by, ttlSeconds),
      ),
    get: (key) =>
      run(
        async () => {
          const v = await redis.get(k(key));
          return v === null ? null : Number(v);
        },
        () => fallback.get(key),
      ),
    initCounter: (key, value, ttlSeconds) =>
      run(
        async () => void (await redis.set(k(key), value, 'EX', ttlSeconds, 'NX')),
        () => fallback.initCounter(key, value, ttlSeconds),
      ),
    async cacheGet(key) {
      const near = front.get(key);
      if (near !== undefined) return near;
      return run(
        async () => {
          const v = await redis.get(k(key));
          if (v === null) return undefined;
          front.set(key, v);
          return v;
        },
        () => fallback.cacheGet(key),
      );
    },
    async cacheSet(key, value, ttlSeconds) {
      front.set(key, value, { ttl: Math.min(frontMs, ttlSeconds * 1000) });
      await run(
        async () => void (await redis.set(k(key), value, 'EX', ttlSeconds)),
        () => fallback.cacheSet(key, value, ttlSeconds),
      );
    },
    async publishRevocation(userId) {
      // This process at once; the others through the channel (or, while Redis is down, their 1 s key cache TTL).
      for (const l of listeners) l(userId);
      await run(
        async () => void (await redis.publish(channel, String(userId))),
        async () => undefined,
      );
    },
    onRevocation(listener) {
      listeners.push(listener);
    },
    async health(): Promise<StateHealth> {
      const ok = redis.status === 'ready' && !outage;
      return ok ? { backend: 'redis', ok } : { backend: 'redis', ok, degraded: `Redis unreachable (${outage ?? redis.status}); limits are per process` };
    },
    async close() {
      closing = true;
      leases.close();
      await fallback.close();
      front.clear();
      await Promise.all([redis, sub].map((c) => c.quit().then(() => undefined, () => c.disconnect())));
    },
  };
}
