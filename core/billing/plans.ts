// Plan quotas: whether a call is free (inside the active plan's daily calls and free concurrency, or a free
// cache hit) or charged per call. Quota is reserved before the plugin runs and given back unless it succeeds.
// Billing decides and returns a Quote; the pipeline records it on the call (billing never writes into a call).
// What is usually answered from memory comes without a promise (kernel/maybe-promise.ts).

import type { MaybePromise } from '../kernel/maybe-promise.js';

/** Quota reserved for one call; exactly one of keep/giveBack runs when the call ends. */
export interface PlanGrant {
  planId: string;
  /** Quota-reserving plans: calls used today including this one, and the daily limit (for quota alerts). */
  usage?: { used: number; limit: number };
  /** The call succeeded: the quota stays used (a free-concurrency slot is freed). */
  keep(): MaybePromise<void>;
  /** The call failed: the quota goes back. */
  giveBack(): MaybePromise<void>;
}

/** The price decision for one call: what it costs, why it is free, and the plan quota it reserved. */
export interface Quote {
  /** micro-TOKEN; 0 when free */
  price: number;
  freeReason: string | null;
  planGrant?: PlanGrant;
}

/** What pricing needs to know about an operation. */
export interface PricedOperation {
  code: string;
  priceMicro: number;
}

export interface Plans {
  /**
   * What this call costs. `cached`: its answer is a cache hit, free when the user's plan makes cache hits of this
   * operation free (no quota is reserved for it). Otherwise the plan's quota may be reserved (Quote.planGrant).
   */
  quote(userId: number, op: PricedOperation, cached: boolean): MaybePromise<Quote>;
  /** Headers describing the quota left today, for an active plan. */
  quotaHeaders(userId: number): MaybePromise<Record<string, string>>;
}
