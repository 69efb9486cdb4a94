// The Lua scripts of the Redis state. Each runs atomically inside Redis, and each reads the clock with TIME,
// so every gateway process measures buckets and slot expiry against one clock, whatever its own drift.
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

const NOW = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`;

/**
 * Token bucket, the rule of token-bucket.ts: refill `rate`/s up to `burst`, take one token when at least one is
 * there. Returns the token count before this take.
 */
const TAKE = `local function take(key, rate, burst)
  local b = redis.call('HMGET', key, 'tokens', 'ts')
  local before = burst
  if b[1] and b[2] then
    local elapsed = math.max(0, now - tonumber(b[2])) / 1000
    before = math.min(burst, tonumber(b[1]) + elapsed * rate)
  end
  local after = before
  if before >= 1 then after = before - 1 end
  redis.call('HSET', key, 'tokens', tostring(after), 'ts', now)
  -- A full bucket equals a missing one, so the key may go once it would be full again.
  redis.call('PEXPIRE', key, math.ceil((burst - after) / rate * 1000) + 1000)
  return before
end
`;

/**
 * A slot set outlives the longest lease in it, so members of a dead process stay until they lapse. When less than
 * one lease (and a second) is left it is extended to two: most takes and renewals then only read the TTL, where
 * setting it on every one was a second command per call. It never shortens a TTL set for a longer lease.
 */
const OUTLIVE = `local function outlive(key, lease)
  if redis.call('PTTL', key) < lease + 1000 then redis.call('PEXPIRE', key, 2 * lease + 1000) end
end
`;

/**
 * Take one of `limit` slots in the sorted set `key` (member = token, score = expiry in ms). Lapsed members (slots of
 * a dead process) are dropped only when the set looks full, where they could refuse a call: below the limit a take
 * succeeds with or without them, and they are never more than the limit. 1 or 0.
 */
const ACQUIRE = `${OUTLIVE}local function acquire(key, limit, lease, token)
  if redis.call('ZCARD', key) >= limit then
    redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
    if redis.call('ZCARD', key) >= limit then return 0 end
  end
  redis.call('ZADD', key, now + lease, token)
  outlive(key, lease)
  return 1
end
`;

/** KEYS[1] bucket; ARGV rate, burst. The count before this take as a string (Lua numbers become integers). */
export const TAKE_TOKEN = `${NOW}${TAKE}return tostring(take(KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2])))
`;

/** KEYS[1] slot set; ARGV limit, leaseMs, token. 1 or 0. */
export const ACQUIRE_SLOT = `${NOW}${ACQUIRE}return acquire(KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3])
`;

/**
 * The slot releases and the admissions of one event-loop turn of one process, in one call (redis-turn.ts): first
 * every release (ZREM of the slot, and the SET of the call's cache entry when it has one), then every admission
 * (TAKE_TOKEN, then ACQUIRE_SLOT only when a token was there, and the GET of the cache entry asked for with it).
 * ARGV[1] releases, ARGV[2] admissions, then each entry's values; KEYS each entry's keys, in the same order:
 * a release: KEYS slot set, cache key (the slot set again when there is no entry); ARGV token, 1 or 0 (an entry
 * to set), value, ttlSeconds.
 * an admission: KEYS bucket, slot set, cache key (the slot set again when nothing is read); ARGV rate, burst,
 * limit, leaseMs, token, 1 or 0 (read the cache key).
 * Returns one {tokens before as a string, 1 or 0 (slot taken), the cached value or nil} per admission.
 */
export const TURN = `${NOW}${TAKE}${ACQUIRE}
local k, v = 1, 3
for i = 1, tonumber(ARGV[1]) do
  redis.call('ZREM', KEYS[k], ARGV[v])
  if ARGV[v + 1] == '1' then redis.call('SET', KEYS[k + 1], ARGV[v + 2], 'EX', ARGV[v + 3]) end
  k, v = k + 2, v + 4
end
local out = {}
for i = 1, tonumber(ARGV[2]) do
  local before = take(KEYS[k], tonumber(ARGV[v]), tonumber(ARGV[v + 1]))
  local taken = 0
  if before >= 1 then taken = acquire(KEYS[k + 1], tonumber(ARGV[v + 2]), tonumber(ARGV[v + 3]), ARGV[v + 4]) end
  local value = false
  if ARGV[v + 5] == '1' then value = redis.call('GET', KEYS[k + 2]) end
  out[i] = {tostring(before), taken, value}
  k, v = k + 3, v + 6
end
return out
`;

/** Extend the lease of slots this process still holds (XX: a slot already expired stays gone). KEYS[i] / ARGV[i+1]. */
export const RENEW_SLOTS = `${NOW}${OUTLIVE}
local lease = tonumber(ARGV[1])
for i, key in ipairs(KEYS) do
  redis.call('ZADD', key, 'XX', now + lease, ARGV[i + 1])
  outlive(key, lease)
end
return #KEYS
`;

/** INCRBY with a TTL set when the counter is new (also when a decrement creates it). KEYS[1]; ARGV by, ttlSeconds. */
export const INCR = `local v = redis.call('INCRBY', KEYS[1], ARGV[1])
if redis.call('TTL', KEYS[1]) < 0 then redis.call('EXPIRE', KEYS[1], ARGV[2]) end
return v
`;

export type ScriptRunner = (keys: string[], args: Array<string | number>) => Promise<unknown>;

const isNoScript = (err: unknown): boolean => !!(err as Error | null)?.message?.startsWith('NOSCRIPT');

/** EVALSHA, loading the script once on NOSCRIPT (after a Redis restart or on first use). */
export function scriptRunner(redis: Redis, lua: string): ScriptRunner {
  const sha = createHash('sha1').update(lua).digest('hex');
  return async (keys, args) => {
    try {
      return await redis.evalsha(sha, keys.length, ...keys, ...args);
    } catch (err) {
      if (!isNoScript(err)) throw err;
      return redis.eval(lua, keys.length, ...keys, ...args);
    }
  };
}
