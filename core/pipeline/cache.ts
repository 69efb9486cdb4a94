// Stages: read and write the result cache. The key covers operation, plugin options and canonical input
// (keyOf, kernel/canonical.ts), so a config change never serves a result computed under other options. Failures
// are never cached.
// Entries are the result's JSON text, so a hit is sent as stored without parsing it. The cache is read before the
// price is decided: a hit that the caller's plan makes free then reserves no quota at all (price.ts).
// On Redis a call costs two round trips: the cache is read with the admission (admit.ts), and a fresh result goes
// to the shared tier with the release of the call's slot (concurrency-slot.ts); this process serves it at once.
import { keyOf } from '../kernel/canonical.js';
import { after, type MaybePromise } from '../kernel/maybe-promise.js';
import type { Services } from '../services.js';
import type { ApiCall, Stage, Validated } from './call.js';
import { slotOf } from './concurrency-slot.js';

/** Sets the call's cache key; returns it when the result may be read from the cache. */
export function cacheKeyToRead(call: Validated): string | undefined {
  const op = call.operation;
  call.cacheKey = `c:${op.code}:${keyOf(op.optionsHash, call.input)}`;
  // A canary must reach the upstream: a cached answer proves nothing about it.
  return op.cacheTtl === 0 || call.canary ? undefined : call.cacheKey;
}

/** The call is answered with a cached result. */
export function takeHit(call: ApiCall, hit: string): void {
  call.dataJson = hit;
  call.cached = true;
}

/** The cache was read with the admission (admit.ts); only a call admitted without its key reads it here. */
export const readCache: Stage<Validated, { cacheKey: string }> = (call, s) => {
  if (call.cacheKey !== undefined) return undefined;
  const key = cacheKeyToRead(call);
  if (key === undefined) return undefined;
  return after(s.state.cacheGet(key), (hit) => {
    if (hit !== undefined) takeHit(call, hit);
    return undefined;
  });
};

/**
 * Stage: a fresh result enters the cache as soon as the plugin returned it, before its charge commits (captures
 * wait for a group commit, core/store/group-commit.ts): calls with the same input that arrive meanwhile are
 * served from the cache instead of running the plugin again. Only successes get here. Best effort: a cache that
 * cannot be written never fails the call.
 */
export const cacheResult: Stage = (call, s) => {
  const ttl = call.cacheTtl ?? call.operation?.cacheTtl ?? 0;
  // A hit, or nothing to keep: the stage is over without a promise.
  if (call.cached || call.canary || ttl <= 0 || call.dataJson === undefined || !call.cacheKey) return undefined;
  return writeCache(call, s, call.cacheKey, call.dataJson, ttl);
};

function writeCache(call: ApiCall, s: Services, key: string, json: string, ttl: number): MaybePromise<undefined> {
  const failed = (e: unknown): undefined => {
    s.logger.warn('cache write failed', { request_id: call.requestId, reason: (e as Error).message });
    return undefined;
  };
  try {
    // The shared tier gets it with the slot's release (one round trip for both); this process has it at once.
    const slot = slotOf(call);
    if (slot) slot.cache = { key, value: json, ttlSeconds: ttl };
    const written = slot ? s.state.cacheSetHere(key, json, ttl) : s.state.cacheSet(key, json, ttl);
    return written instanceof Promise ? written.then(() => undefined, failed) : undefined;
  } catch (e) {
    return failed(e);
  }
}
