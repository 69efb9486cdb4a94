// Stages: read and write the result cache. The key covers operation, plugin options and canonical input
// (keyOf, kernel/canonical.ts), so a config change never serves a result computed under other options. Failures
// are never cached.
// Entries are the result's JSON text, so a hit is sent as stored without parsing it. The cache is read before the
// price is decided: a hit that the caller's plan makes free then reserves no quota at all (price.ts).
import { keyOf } from '../kernel/canonical.js';
import { after, type MaybePromise } from '../kernel/maybe-promise.js';
import type { Services } from '../services.js';
import type { ApiCall, Stage, Validated } from './call.js';

export const readCache: Stage<Validated, { cacheKey: string }> = (call, s) => {
  const op = call.operation;
  const key = `c:${op.code}:${keyOf(op.optionsHash, call.input)}`;
  call.cacheKey = key;
  // A canary must reach the upstream: a cached answer proves nothing about it.
  if (op.cacheTtl === 0 || call.canary) return undefined;
  return after(s.state.cacheGet(key), (hit) => {
    if (hit === undefined) return undefined;
    call.dataJson = hit;
    call.cached = true;
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
    const written = s.state.cacheSet(key, json, ttl);
    return written instanceof Promise ? written.then(() => undefined, failed) : undefined;
  } catch (e) {
    return failed(e);
  }
}
