// A token bucket per address group for requests that prove nothing (an /api call without a valid key, a payment
// notification that fails verification): only refusals take a token, so a caller with a valid key or a provider
// with a valid signature is never slowed, and a stranger's flood is answered 429 without further work.
// In memory, per process: a Redis round trip per refused request would make the flood cost more, and the bound
// only has to keep one process's disk and log safe. The map holds at most `maxAddresses` groups; the least
// recently refused are forgotten first (a forgotten group starts again with a full bucket).
import { type Bucket, takeFromBucket } from './token-bucket.js';

export interface AddressBudget {
  /** Takes one token for `group`; the seconds to wait when there was none, otherwise 0. */
  take(group: string, now?: number): number;
  /** The seconds to wait before `group` has a token again, without taking one; 0 when it has one. */
  wait(group: string, now?: number): number;
}

export interface AddressBudgetOptions {
  ratePerSecond: number;
  burst: number;
  maxAddresses?: number;
}

export function createAddressBudget({
  ratePerSecond,
  burst,
  maxAddresses = 50_000,
}: AddressBudgetOptions): AddressBudget {
  const buckets = new Map<string, Bucket>();
  return {
    take(group, now = Date.now()) {
      const had = buckets.get(group);
      const { bucket, decision } = takeFromBucket(had, ratePerSecond, burst, now);
      // Delete and set again: the Map's order is then least recently refused first.
      if (had) buckets.delete(group);
      else if (buckets.size >= maxAddresses) buckets.delete(buckets.keys().next().value as string);
      buckets.set(group, bucket);
      return decision.allowed ? 0 : decision.retryAfterSeconds;
    },
    wait(group, now = Date.now()) {
      const had = buckets.get(group);
      if (!had) return 0;
      const { decision } = takeFromBucket(had, ratePerSecond, burst, now);
      return decision.allowed ? 0 : decision.retryAfterSeconds;
    },
  };
}
