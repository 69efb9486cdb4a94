// The Lua scripts of the Redis state. Each runs atomically inside Redis, and each reads the clock with TIME,
// so every gateway process measures buckets and slot expiry against one clock, whatever its own drift. Also how
// they are sent: alone, or in a pipeline with the command that shares their round trip.
import { createHash } from 'node:crypto';
import type { ChainableCommander, Redis } from 'ioredis';

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
 * Take one of `limit` slots in the sorted set `key` (member = token, score = expiry in ms): expired members are
 * dropped first, so slots of a dead process free themselves. 1 or 0.
 */
const ACQUIRE = `local function acquire(key, limit, lease, token)
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
  if redis.call('ZCARD', key) >= limit then return 0 end
  redis.call('ZADD', key, now + lease, token)
  if redis.call('PTTL', key) < lease + 1000 then redis.call('PEXPIRE', key, lease + 1000) end
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
 * TAKE_TOKEN, then ACQUIRE_SLOT only when a token was there: one round trip for both (SharedState.admit).
 * KEYS[1] bucket, KEYS[2] slot set; ARGV rate, burst, limit, leaseMs, token. {tokens before as a string, 1 or 0}.
 */
export const ADMIT = `${NOW}${TAKE}${ACQUIRE}
local before = take(KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]))
if before < 1 then return {tostring(before), 0} end
return {tostring(before), acquire(KEYS[2], tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5])}
`;

/** Extend the lease of slots this process still holds (XX: a slot already expired stays gone). KEYS[i] / ARGV[i+1]. */
export const RENEW_SLOTS = `${NOW}
local lease = tonumber(ARGV[1])
for i, key in ipairs(KEYS) do
  redis.call('ZADD', key, 'XX', now + lease, ARGV[i + 1])
  if redis.call('PTTL', key) < lease + 1000 then redis.call('PEXPIRE', key, lease + 1000) end
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

/**
 * The replies of a pipeline (written to Redis in one piece: one round trip), or the first error in it: ioredis
 * resolves a pipeline whose commands failed (a timeout, a lost connection) with the errors in place.
 */
export async function execAll(pipeline: ChainableCommander): Promise<unknown[]> {
  const replies = (await pipeline.exec()) ?? [];
  const failed = replies.find(([err]) => err);
  if (failed) throw failed[0];
  return replies.map(([, reply]) => reply);
}

/** A script and a GET in one pipeline: the script's reply and the value (null when absent). */
export type ScriptWithGet = (
  keys: string[],
  args: Array<string | number>,
  getKey: string,
) => Promise<[unknown, unknown]>;

/**
 * EVALSHA and GET in one round trip. On NOSCRIPT (first use, or after a Redis restart) the GET's answer is kept and
 * the script runs again on its own with EVAL, which loads it.
 */
export function scriptWithGet(redis: Redis, lua: string): ScriptWithGet {
  const sha = createHash('sha1').update(lua).digest('hex');
  return async (keys, args, getKey) => {
    const replies = (await redis
      .pipeline()
      .evalsha(sha, keys.length, ...keys, ...args)
      .get(getKey)
      .exec()) ?? [[new Error('pipeline not run'), null]];
    const [[scriptErr, reply], [getErr, value] = [null, null]] = replies;
    if (getErr) throw getErr;
    if (!scriptErr) return [reply, value];
    if (!isNoScript(scriptErr)) throw scriptErr;
    return [await redis.eval(lua, keys.length, ...keys, ...args), value];
  };
}
