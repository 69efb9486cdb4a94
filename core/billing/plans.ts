// Plan quotas: whether a call is free (inside the active plan's daily calls and free concurrency, or a free
// cache hit) or charged per call. Quota is reserved before the plugin runs and given back unless it succeeds.
import type { ApiCall } from '../pipeline/call.js';

/** Quota reserved for one call; exactly one of commit/release runs when the call ends. */
export interface PlanGrant {
  planId: string;
  commit(): Promise<void>;
  release(): Promise<void>;
}

export interface Plans {
  /** Sets call.price / call.freeReason / call.planGrant before the cache is read. */
  price(call: ApiCall): Promise<void>;
  /** A cache hit: free under a cache_free plan. */
  onCacheHit(call: ApiCall): Promise<void>;
  /** Headers describing the quota left today, for an active plan. */
  quotaHeaders(call: ApiCall): Promise<Record<string, string>>;
}
