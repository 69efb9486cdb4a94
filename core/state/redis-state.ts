// SharedState in Redis (REDIS_URL): one truth for rate limits, in-flight slots, plan counters, the shared cache
// tier and revocations across any number of gateway processes. Money never lives here: a Redis restart loses
// limits and cache, never balance. While Redis is unreachable rate limits, slots and cache fall back to an
// embedded memory state (per-process limits), a warning is logged once per outage and health() reports
// degraded; counters that guard money (spend caps, plan quotas) throw StateUnavailableError instead.
//
// A Redis that hangs (accepts, never answers) is worse than one that refuses: every command would wait for its
// timeout. So every command has a short deadline (REDIS_COMMAND_TIMEOUT_MS), and the first failure opens a
// breaker: calls go straight to the fallback without touching Redis, while a background PING (under the same
// deadline) checks every BREAKER_PROBE_MS whether Redis answers again, and closes the breaker when it does,
// whether or not the socket ever dropped.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import type { Logger } from '../kernel/logger.js';
import type { MaybePromise } from '../kernel/maybe-promise.js';
import { LoopFairRedis } from './loop-fair-redis.js';
import { createMemoryState } from './memory-state.js';
import { ACQUIRE_SLOT, INCR, RENEW_SLOTS, scriptRunner, TAKE_TOKEN, TURN } from './redis-scripts.js';
import { redisTurn } from './redis-turn.js';
import { type CacheEntry, type SharedState, type StateHealth, StateUnavailableError } from './shared-state.js';
import { createSlotLeases } from './slot-leases.js';
import { takeFromBucket } from './token-bucket.js';

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
  /** Deadline of every command (REDIS_COMMAND_TIMEOUT_MS). */
  commandTimeoutMs?: number;
}

const BREAKER_PROBE_MS = 500;

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
    commandTimeout: opts.commandTimeoutMs ?? 250,
    connectTimeout: 2000,
    retryStrategy: (times: number) => Math.min(times * 200, 1000),
  };
  // The deadline counts Redis's time, not a stall of this thread (loop-fair-redis.ts).
  const redis = new LoopFairRedis(opts.url, redisOpts);
  // The subscriber queues its SUBSCRIBE until connected and re-subscribes after every reconnect.
  const sub = new Redis(opts.url, { ...redisOpts, enableOfflineQueue: true, commandTimeout: undefined });
  const fallback = createMemoryState();
  const front = new LRUCache<string, string>({ max: 10_000, ttl: frontMs });
  const listeners: Array<(userId: number) => void> = [];
  const channel = `${prefix}revocations`;
  const take = scriptRunner(redis, TAKE_TOKEN);
  const acquire = scriptRunner(redis, ACQUIRE_SLOT);
  const incrScript = scriptRunner(redis, INCR);
  const turn = redisTurn(scriptRunner(redis, TURN));
  const leases = createSlotLeases(scriptRunner(redis, RENEW_SLOTS), opts.slotLeaseMs, () => redis.status === 'ready');

  let outage: string | null = null;
  let closing = false;
  let probe: NodeJS.Timeout | null = null;
  let probing = false;
  /** Give-backs that were never sent (Redis unreachable or breaker open): applied once Redis answers again. */
  let owed = new Map<string, { by: number; ttlSeconds: number }>();
  const payBack = async (): Promise<void> => {
    const due = owed;
    owed = new Map();
    for (const [key, { by, ttlSeconds }] of due) {
      await incrScript([key], [-by, ttlSeconds]).catch((err: Error) => {
        // Sent but unanswered: it may have been applied, so it is not retried (the counter can only stay high).
        logger.warn('counter give-back not confirmed', { key, by, reason: err.message });
      });
    }
    if (due.size) logger.info('counters reconciled after the outage', { keys: due.size });
  };
  const markUp = (): void => {
    if (outage) logger.info('Redis is back: shared limits restored', { outage });
    outage = null;
    if (probe) clearInterval(probe);
    probe = null;
    if (owed.size) void payBack();
  };
  const markDown = (reason: string): void => {
    if (outage || closing) return;
    outage = reason;
    logger.warn(
      'Redis unreachable: limits and cache are per process, capped spending and plan quotas answer 503 until it returns',
      { reason },
    );
    // The breaker is open: only this probe talks to Redis until it answers again.
    probe = setInterval(() => {
      if (probing || redis.status !== 'ready') return;
      probing = true;
      redis
        .ping()
        .then(markUp, () => undefined)
        .finally(() => (probing = false));
    }, BREAKER_PROBE_MS);
    probe.unref();
  };
  redis.on('error', (err: Error) => markDown(err.message));
  redis.on('close', () => markDown('connection closed'));
  redis.on('ready', markUp);
  sub.on('error', () => undefined); // reported through the main connection
  sub.on('message', (_channel: string, message: string) => {
    const userId = Number(message);
    if (Number.isSafeInteger(userId)) for (const l of listeners) l(userId);
  });
  void sub.subscribe(channel).catch(() => undefined);

  /** Run against Redis when it is up and the breaker closed; otherwise (or when the command fails) in memory. */
  const run = async <T>(viaRedis: () => Promise<T>, viaMemory: () => MaybePromise<T>): Promise<T> => {
    if (outage || redis.status !== 'ready') {
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
  /** Counters guard money: no per-process fallback, the caller refuses the call instead. */
  const unavailable = async (): Promise<never> => {
    throw new StateUnavailableError(outage ?? `connection ${redis.status}`);
  };

  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, opts.connectWaitMs ?? 2000);
    redis.once('ready', () => (clearTimeout(timer), resolve()));
  });
  if (redis.status !== 'ready') markDown(`no connection to ${opts.url.replace(/\/\/[^@]*@/, '//***@')} at start`);

  const k = (key: string): string => `${prefix}${key}`;
  /** The decision for a bucket that held `before` tokens: the memory state's arithmetic, with no elapsed time. */
  const decide = (before: unknown, rate: number, burst: number) =>
    takeFromBucket({ tokens: Number(before), updatedMs: 0 }, rate, burst, 0).decision;
  /** A new slot of `scope`: its sorted set, its member and the lease it is taken for. */
  const newSlot = (scope: string, ttlMs: number) => ({
    key: k(`slot:${scope}`),
    token: randomUUID(),
    lease: Math.min(opts.slotLeaseMs, ttlMs),
  });
  /** A slot Redis granted: renewed while held when its lease is shorter than the call may run. */
  const granted = ({ key, token, lease }: ReturnType<typeof newSlot>, ttlMs: number): string => {
    if (lease < ttlMs) leases.hold(key, token, ttlMs);
    return `r:${token}`;
  };

  /** An entry in this process's tier (the front). */
  const setHere = (key: string, value: string, ttlSeconds: number): void =>
    void front.set(key, value, { ttl: Math.min(frontMs, ttlSeconds * 1000) });
  /** An entry in the shared tier, or the fallback while Redis is down. */
  const shareEntry = ({ key, value, ttlSeconds }: CacheEntry): Promise<void> =>
    run(
      async () => void (await redis.set(k(key), value, 'EX', ttlSeconds)),
      () => fallback.cacheSet(key, value, ttlSeconds),
    );

  return {
    takeToken: (bucket, rate, burst) =>
      run(
        async () => decide(await take([k(bucket)], [rate, burst]), rate, burst),
        () => fallback.takeToken(bucket, rate, burst),
      ),
    admit: (bucket, rate, burst, scope, limit, ttlMs, cacheKey) => {
      // This process's tier first: a near hit asks Redis for the token and the slot only.
      const near = cacheKey === undefined ? undefined : front.get(cacheKey);
      const read = near === undefined ? cacheKey : undefined;
      return run(
        async () => {
          const slot = newSlot(scope, ttlMs);
          // With the other admissions and releases of this turn, in one script call (redis-turn.ts). A GET of a
          // rate-limited call is wasted, which is cheaper than a second round trip for every admitted one.
          const [before, acquired, value] = await turn.admit({
            bucket: k(bucket),
            rate,
            burst,
            slotKey: slot.key,
            limit,
            leaseMs: slot.lease,
            token: slot.token,
            read: read === undefined ? undefined : k(read),
          });
          if (read !== undefined && typeof value === 'string') front.set(read, value);
          // The script takes a slot only when the bucket had a token: the rule `decide` applies too.
          const taken = acquired === 1 ? granted(slot, ttlMs) : null;
          return {
            rate: decide(before, rate, burst),
            slot: taken,
            cached: near ?? value ?? undefined,
          };
        },
        async () => {
          const admission = await fallback.admit(bucket, rate, burst, scope, limit, ttlMs, read);
          return {
            rate: admission.rate,
            slot: admission.slot && `m:${admission.slot}`,
            cached: near ?? admission.cached,
          };
        },
      );
    },
    acquireSlot: (scope, limit, ttlMs) =>
      run(
        async () => {
          const slot = newSlot(scope, ttlMs);
          if (Number(await acquire([slot.key], [limit, slot.lease, slot.token])) !== 1) return null;
          return granted(slot, ttlMs);
        },
        async () => {
          const token = await fallback.acquireSlot(scope, limit, ttlMs);
          return token && `m:${token}`;
        },
      ),
    async releaseSlot(scope, token, cache) {
      if (token.startsWith('m:')) {
        // Taken during an outage: the entry reaches whichever tier answers now.
        await fallback.releaseSlot(scope, token.slice(2));
        if (cache) await shareEntry(cache);
        return;
      }
      const key = k(`slot:${scope}`);
      leases.drop(key, token.slice(2));
      // If Redis is unreachable (or the breaker is open) the slot simply expires with its lease.
      if (outage) {
        if (cache) fallback.cacheSet(cache.key, cache.value, cache.ttlSeconds);
        return;
      }
      const entry = cache && { key: k(cache.key), value: cache.value, ttlSeconds: cache.ttlSeconds };
      await turn.release({ slotKey: key, token: token.slice(2), cache: entry }).catch((err: Error) => {
        if (isReplyError(err)) throw err;
        markDown(err.message);
      });
    },
    incr: (key, by, ttlSeconds) => run(async () => Number(await incrScript([k(key)], [by, ttlSeconds])), unavailable),
    async giveBack(key, by, ttlSeconds) {
      const full = k(key);
      if (!outage && redis.status === 'ready') {
        try {
          await incrScript([full], [-by, ttlSeconds]);
          return;
        } catch (err) {
          if (isReplyError(err)) throw err;
          markDown((err as Error).message);
          // Sent but unanswered: it may have been applied; keeping the counter high is the safe side.
          logger.warn('counter give-back not confirmed', { key, by, reason: (err as Error).message });
          return;
        }
      }
      // Never sent (enableOfflineQueue is off): owed, and paid when Redis answers again.
      const prev = owed.get(full);
      owed.set(full, { by: (prev?.by ?? 0) + by, ttlSeconds });
    },
    get: (key) =>
      run(async () => {
        const v = await redis.get(k(key));
        return v === null ? null : Number(v);
      }, unavailable),
    initCounter: (key, value, ttlSeconds) =>
      run(async () => void (await redis.set(k(key), value, 'EX', ttlSeconds, 'NX')), unavailable),
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
      setHere(key, value, ttlSeconds);
      await shareEntry({ key, value, ttlSeconds });
    },
    cacheSetHere(key, value, ttlSeconds) {
      setHere(key, value, ttlSeconds);
      // During an outage the fallback is the shared tier of this process: written now, as cacheSet would.
      if (outage) fallback.cacheSet(key, value, ttlSeconds);
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
      // No error text here: health is public. The reason is in the log line of markDown.
      return ok
        ? { backend: 'redis', ok }
        : {
            backend: 'redis',
            ok,
            degraded:
              'Redis unreachable or not answering; limits are per process, capped spending and plan quotas are paused',
          };
    },
    async close() {
      closing = true;
      if (probe) clearInterval(probe);
      leases.close();
      await fallback.close();
      front.clear();
      await Promise.all(
        [redis, sub].map((c) =>
          c.quit().then(
            () => undefined,
            () => c.disconnect(),
          ),
        ),
      );
    },
  };
}
