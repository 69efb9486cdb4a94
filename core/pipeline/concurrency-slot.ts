// The reservation of a call's in-flight slot (taken by admit.ts), freed whatever the outcome. The call's fresh
// result rides on its release to the shared cache tier (cache.ts): one Redis round trip for both.
import type { MaybePromise } from '../kernel/maybe-promise.js';
import type { CacheEntry, SharedState } from '../state/shared-state.js';
import type { ApiCall, Reservation } from './call.js';

export class ConcurrencySlot implements Reservation {
  readonly name = 'concurrency slot';
  /** The result to share with the release (set by the cache write). */
  cache?: CacheEntry;
  constructor(
    private readonly state: SharedState,
    private readonly scope: string,
    private readonly slot: string,
  ) {}
  keep(): MaybePromise<void> {
    return this.state.releaseSlot(this.scope, this.slot, this.cache);
  }
  giveBack(): MaybePromise<void> {
    return this.state.releaseSlot(this.scope, this.slot, this.cache);
  }
}

/** The call's slot, while it holds one. */
export function slotOf(call: ApiCall): ConcurrencySlot | undefined {
  for (const r of call.reservations) if (r instanceof ConcurrencySlot) return r;
  return undefined;
}
