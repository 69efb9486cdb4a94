// The test backend switch. TOLLGATE_TEST_BACKEND=pg-redis makes createTestApp run on a fresh PostgreSQL schema
// and a Redis key prefix of its own (both removed on close); unset, tests run on in-memory SQLite + memory state.
// Also the reachability probe the scale suites use to decide whether to run or skip.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';
import type { Settings } from '../../core/config/env.js';

export const PG_URL = process.env.TOLLGATE_TEST_PG_URL || 'postgres://postgres@127.0.0.1:5432/test';
export const REDIS_URL = process.env.TOLLGATE_TEST_REDIS_URL || 'redis://127.0.0.1:6379';

export interface TestBackend {
  settings: Partial<Settings>;
  close(): Promise<void>;
}

/** This environment without what tap sets for its own children, so a spawned process (or a nested tap) starts clean. */
export function childEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(env))
    if (k.startsWith('TAP') || k.startsWith('_TAPJS_') || k === 'TOLLGATE_TEST_BACKEND') delete env[k];
  if (env.NODE_OPTIONS?.includes('@tapjs/')) delete env.NODE_OPTIONS;
  // A spawned gateway never runs canaries unless the test asks: they would reach the internet.
  return { ...env, CANARIES: 'off', ...extra };
}

const hostOf = (url: string): string => new URL(url).host;

/** Null when both are reachable, else why not (the message a skipped suite prints). */
export async function unreachable(): Promise<string | null> {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('select 1');
  } catch (err) {
    return `PostgreSQL not reachable at ${hostOf(PG_URL)} (${(err as Error).message})`;
  } finally {
    await client.end().catch(() => undefined);
  }
  const redis = new Redis(REDIS_URL, {
    lazyConnect: true,
    connectTimeout: 2000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    await redis.ping();
  } catch (err) {
    return `Redis not reachable at ${hostOf(REDIS_URL)} (${(err as Error).message})`;
  } finally {
    redis.disconnect();
  }
  return null;
}

/** A fresh schema and key prefix; close() drops the schema and deletes the keys. */
export async function freshPgRedis(): Promise<TestBackend & { schema: string; prefix: string }> {
  const id = randomBytes(6).toString('hex');
  const schema = `t_${id}`;
  const prefix = `tgtest:${id}:`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`create schema "${schema}"`);
  await admin.end();
  return {
    schema,
    prefix,
    settings: { databaseUrl: PG_URL, databaseSchema: schema, redisUrl: REDIS_URL, redisPrefix: prefix },
    async close() {
      // Each connection is ended even when its statements fail: an open one would keep the test process alive.
      const c = new pg.Client({ connectionString: PG_URL });
      try {
        await c.connect();
        await c.query(`drop schema if exists "${schema}" cascade`);
      } finally {
        await c.end();
      }
      const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
      try {
        let cursor = '0';
        do {
          const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
          if (keys.length) await redis.del(...keys);
          cursor = next;
        } while (cursor !== '0');
      } finally {
        redis.disconnect();
      }
    },
  };
}

/** What createTestApp should add to its settings: nothing for the default backend. */
export async function openTestBackend(): Promise<TestBackend | null> {
  const name = process.env.TOLLGATE_TEST_BACKEND;
  if (!name || name === 'sqlite-memory') return null;
  if (name !== 'pg-redis') throw new Error(`TOLLGATE_TEST_BACKEND must be pg-redis or sqlite-memory, got "${name}"`);
  return freshPgRedis();
}
