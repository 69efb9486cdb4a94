// State shared by every gateway process: rate-limit buckets, in-flight slots, counters, the shared cache tier
// and revocation notices. Memory implementation for one process; Redis for many (REDIS_URL).
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

export interface SharedState {
  takeToken(bucket: string, ratePerSecond: number, burst: number): Promise<RateDecision>;
  /** Take one of `limit` slots; the slot frees itself after ttlMs if its holder dies. */
  acquireSlot(scope: string, limit: number, ttlMs: number): Promise<string | null>;
  releaseSlot(scope: string, token: string): Promise<void>;
  /** Atomically add to a counter (created with the TTL) and return the new value. */
  incr(key: string, by: number, ttlSeconds: number): Promise<number>;
  get(key: string): Promise<number | null>;
  /** Set a counter only if it does not exist yet (seeding from the database after a restart). */
  initCounter(key: string, value: number, ttlSeconds: number): Promise<void>;
  cacheGet(key: string): Promise<string | undefined>;
  cacheSet(key: string, value: string, ttlSeconds: number): Promise<void>;
  /** Tell every process that a user's keys or tokens changed (disable, delete). */
  publishRevocation(userId: number): Promise<void>;
  onRevocation(listener: (userId: number) => void): void;
  health(): Promise<StateHealth>;
  close(): Promise<void>;
}
