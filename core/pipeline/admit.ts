// Stage: per-key token-bucket rate limit and a hard cap of calls in flight per key. Both answer 429 with
// Retry-After; the rate headers go on every response of an identified caller.

import { DETAILS } from '../http/error-details.js';
import { deny } from '../http/errors.js';
import { after, type MaybePromise } from '../kernel/maybe-promise.js';
import type { SharedState } from '../state/shared-state.js';
import type { Authenticated, Reservation, Stage } from './call.js';
import { reserve } from './reservations.js';

/** A slot whose holder died is freed after this long, whatever the operation's timeout. */
const SLOT_TTL_MS = 130_000;

export const admit: Stage<Authenticated> = (call, s) => {
  const id = call.identity;
  const rate = id.rateLimitPerSec ?? s.settings.rateLimitPerSecond;
  const burst = id.rateLimitBurst ?? Math.max(rate, s.settings.rateLimitBurst);
  const cap = Math.min(id.maxConcurrency ?? s.settings.maxInFlightPerKey, s.settings.maxInFlightPerKey);
  const scope = `inflight:${id.keyId}`;
  // The token, then the slot (asked only when the token was there): one round trip on Redis.
  return after(s.state.admit(`rl:${id.keyId}`, rate, burst, scope, cap, SLOT_TTL_MS), ({ rate: decision, slot }) => {
    call.rate = decision;
    if (!decision.allowed) {
      return deny('RATE_LIMITED', DETAILS.rateLimit(rate, burst), decision.retryAfterSeconds);
    }
    if (!slot) return deny('CONCURRENCY_LIMITED', DETAILS.concurrency(cap), 1);
    reserve(call, new ConcurrencySlot(s.state, scope, slot));
    return undefined;
  });
};

/** Freed whatever the outcome. */
class ConcurrencySlot implements Reservation {
  readonly name = 'concurrency slot';
  constructor(
    private readonly state: SharedState,
    private readonly scope: string,
    private readonly slot: string,
  ) {}
  keep(): MaybePromise<void> {
    return this.state.releaseSlot(this.scope, this.slot);
  }
  giveBack(): MaybePromise<void> {
    return this.state.releaseSlot(this.scope, this.slot);
  }
}
