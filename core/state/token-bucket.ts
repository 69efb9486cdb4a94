// Token-bucket arithmetic shared by the memory and Redis implementations (Redis runs the same rule in Lua).
import type { RateDecision } from './shared-state.js';

export interface Bucket {
  tokens: number;
  updatedMs: number;
}

export function takeFromBucket(
  bucket: Bucket | undefined,
  rate: number,
  burst: number,
  nowMs: number,
): { bucket: Bucket; decision: RateDecision } {
  const elapsed = bucket ? Math.max(0, nowMs - bucket.updatedMs) / 1000 : 0;
  const before = bucket ? Math.min(burst, bucket.tokens + elapsed * rate) : burst;
  const allowed = before >= 1;
  const tokens = allowed ? before - 1 : before;
  return {
    bucket: { tokens, updatedMs: nowMs },
    decision: {
      allowed,
      limit: burst,
      remaining: Math.floor(tokens),
      resetSeconds: Math.ceil((burst - tokens) / rate),
      retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - tokens) / rate)),
    },
  };
}
