// Stage: per-key token-bucket rate limit and a hard cap of calls in flight per key. Both answer 429 with
// Retry-After; the rate headers go on every response of an identified caller. The cache is read with the admission
// (one Redis round trip for all three); readCache (cache.ts) takes the hit from here.

import { DETAILS } from '../http/error-details.js';
import { deny } from '../http/errors.js';
import { after } from '../kernel/maybe-promise.js';
import { cacheKeyToRead, takeHit } from './cache.js';
import type { Stage, Validated } from './call.js';
import { ConcurrencySlot } from './concurrency-slot.js';
import { reserve } from './reservations.js';

/** A slot whose holder died is freed after this long, whatever the operation's timeout. */
const SLOT_TTL_MS = 130_000;

export const admit: Stage<Validated> = (call, s) => {
  const id = call.identity;
  const rate = id.rateLimitPerSec ?? s.settings.rateLimitPerSecond;
  const burst = id.rateLimitBurst ?? Math.max(rate, s.settings.rateLimitBurst);
  const cap = Math.min(id.maxConcurrency ?? s.settings.maxInFlightPerKey, s.settings.maxInFlightPerKey);
  const scope = `inflight:${id.keyId}`;
  const cacheKey = cacheKeyToRead(call);
  // The token, then the slot (asked only when the token was there), and the cache entry: one round trip on Redis.
  const admission = s.state.admit(`rl:${id.keyId}`, rate, burst, scope, cap, SLOT_TTL_MS, cacheKey);
  return after(admission, ({ rate: decision, slot, cached }) => {
    call.rate = decision;
    if (!decision.allowed) {
      return deny('RATE_LIMITED', DETAILS.rateLimit(rate, burst), decision.retryAfterSeconds);
    }
    if (!slot) return deny('CONCURRENCY_LIMITED', DETAILS.concurrency(cap), 1);
    reserve(call, new ConcurrencySlot(s.state, scope, slot));
    if (cached !== undefined) takeHit(call, cached);
    return undefined;
  });
};
