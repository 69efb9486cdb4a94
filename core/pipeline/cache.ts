// Stages: read and write the result cache. The key covers operation, plugin options and canonical input,
// so a config change never serves a result computed under other options. Failures are never cached.
import { hashOf } from './canonical.js';
import type { ApiCall, Stage } from './call.js';
import type { Services } from '../services.js';

export const readCache: Stage = async (call, s) => {
  const op = call.operation!;
  call.cacheKey = `c:${op.code}:${hashOf(op.optionsHash, call.input)}`;
  if (op.cacheTtl === 0) return undefined;
  const hit = await s.state.cacheGet(call.cacheKey);
  if (hit === undefined) return undefined;
  call.data = JSON.parse(hit) as unknown;
  call.cached = true;
  await s.plans.onCacheHit(call);
  return undefined;
};

export async function writeCache(call: ApiCall, s: Services): Promise<void> {
  const ttl = call.cacheTtl ?? call.operation?.cacheTtl ?? 0;
  if (call.cached || ttl <= 0 || call.data === undefined || !call.cacheKey) return;
  await s.state.cacheSet(call.cacheKey, JSON.stringify(call.data), ttl);
}
