// A short-lived in-process cache of key identities, so the hot path does not query the database per call.
// Changes made through this process invalidate at once; other processes learn through the revocation
// channel (core/state) or, at worst, when the TTL runs out.

import type { Kysely } from 'kysely';
import { LRUCache } from 'lru-cache';
import type { MaybePromise } from '../kernel/maybe-promise.js';
import type { Database } from '../store/schema.js';
import { type KeyIdentity, loadKeyIdentity } from './api-keys.js';

const MISSING = Symbol('missing');

export interface KeyCache {
  /** At once from the cache (no promise: kernel/maybe-promise.ts), from the database otherwise. */
  get(secretHash: string): MaybePromise<KeyIdentity | null>;
  invalidateUser(userId: number): void;
  invalidateAll(): void;
}

export function createKeyCache(db: Kysely<Database>, ttlMs = 1000, max = 50_000): KeyCache {
  const cache = new LRUCache<string, KeyIdentity | typeof MISSING>({ max, ttl: ttlMs });
  return {
    get(hash) {
      const hit = cache.get(hash);
      if (hit !== undefined) return hit === MISSING ? null : hit;
      return loadKeyIdentity(db, hash).then((identity) => {
        cache.set(hash, identity ?? MISSING);
        return identity;
      });
    },
    invalidateUser(userId) {
      for (const [hash, v] of cache.entries()) if (v !== MISSING && v.userId === userId) cache.delete(hash);
    },
    invalidateAll: () => cache.clear(),
  };
}
