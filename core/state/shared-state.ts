// State shared by every gateway process: rate-limit buckets, in-flight slots, counters, the shared cache tier
// and revocation notices. Memory implementation for one process; Redis for many (REDIS_URL).
import type { MaybePromise } from '../kernel/maybe-promise.js';

export interface RateDecision {
  allowed: boolean;
  /** Bucket size (X-RateLimit-Limit). */
  limit: number;
  /** Whole tokens left after this request (X-RateLimit-Remaining). */
  remaining: number;
  /** Seconds until the bucket is full again (X-RateLimit-Reset). */
  resetSeconds: number;
  /** Seconds until one token is available, when denied (Retry-After). */
  retryAfterSeconds: number;
}

export interface StateHealth {
  backend: 'memory' | 'redis';
  ok: boolean;
  /** Set when Redis is down and the process fell back to per-process limits. */
  degraded?: string;
}

/**
 * Counters that guard money (daily spending caps, plan quotas) must be exact or not used at all: while the shared
 * backend is unreachable they throw this instead of falling back to a per-process count that would let several
 * processes overshoot together. The pipeline answers 503 UNAVAILABLE, uncharged.
 */
export class StateUnavailableError extends Error {
  constructor(reason: string) {
    super(`shared counters unavailable: ${reason}`);
    this.name = 'StateUnavailableError';
  }
}

/** What `admit` took: the rate decision, and the slot when the bucket allowed the call and a slot was free. */
export interface Admission {
  rate: RateDecision;
  slot: string | null;
  /** The cache entry under the `cacheKey` admit was given, read with the admission; undefined when there is none. */
  cached?: string;
}

/** A result for the shared cache tier that travels with a slot's release (SharedState.releaseSlot). */
export interface CacheEntry {
  key: string;
  value: string;
  ttlSeconds: number;
}

/**
 * The calls of every /api call answer at once in memory (no promise: kernel/maybe-promise.ts) and with a promise on
 * Redis; callers `await` them or go on at once with `after`.
 */
export interface SharedState {
  takeToken(bucket: string, ratePerSecond: number, burst: number): MaybePromise<RateDecision>;
  /**
   * takeToken, then (only when it allowed the call) acquireSlot, and with a `cacheKey` the cache entry under it
   * (cacheGet): one round trip on Redis instead of three, for every /api call (core/pipeline/admit.ts).
   */
  admit(
    bucket: string,
    ratePerSecond: number,
    burst: number,
    scope: string,
    limit: number,
    ttlMs: number,
    cacheKey?: string,
  ): MaybePromise<Admission>;
  /** Take one of `limit` slots; the slot frees itself after ttlMs if its holder dies. */
  acquireSlot(scope: string, limit: number, ttlMs: number): MaybePromise<string | null>;
  /**
   * Free a slot. A `cache` entry given here (one cacheSetHere wrote for this process) goes to the shared tier in the
   * same round trip on Redis; the memory state has no other tier and ignores it.
   */
  releaseSlot(scope: string, token: string, cache?: CacheEntry): MaybePromise<void>;
  /** Atomically add to a counter (created with the TTL) and return the new value. Counters (incr, get,
   *  initCounter) never fall back per process: they throw StateUnavailableError while the backend is down. */
  incr(key: string, by: number, ttlSeconds: number): MaybePromise<number>;
  /**
   * Give back part of a counter (a reservation the call did not use). Never fails: while the backend is
   * unreachable the decrement is kept and applied when it returns, so the counter reconciles after an outage
   * instead of staying high for the rest of the day.
   */
  giveBack(key: string, by: number, ttlSeconds: number): MaybePromise<void>;
  get(key: string): MaybePromise<number | null>;
  /** Set a counter only if it does not exist yet (seeding from the database after a restart). */
  initCounter(key: string, value: number, ttlSeconds: number): MaybePromise<void>;
  cacheGet(key: string): MaybePromise<string | undefined>;
  cacheSet(key: string, value: string, ttlSeconds: number): MaybePromise<void>;
  /**
   * cacheSet for this process at once, without a round trip: the shared tier gets the entry with the release of
   * the call's slot (releaseSlot's `cache`). In memory it is cacheSet.
   */
  cacheSetHere(key: string, value: string, ttlSeconds: number): MaybePromise<void>;
  /** Tell every process that a user's keys or tokens changed (disable, delete). */
  publishRevocation(userId: number): Promise<void>;
  onRevocation(listener: (userId: number) => void): void;
  health(): Promise<StateHealth>;
  close(): Promise<void>;
}
