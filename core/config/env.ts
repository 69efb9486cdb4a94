// Environment -> typed settings, parsed once in main.ts. Every variable is documented in README "Configuration".
import { resolve } from 'node:path';
import { availableParallelism } from 'node:os';
import type { Level } from '../http/logger.js';

export interface Settings {
  port: number;
  dataDir: string;
  operationsFile: string;
  databaseUrl: string | null;
  redisUrl: string | null;
  httpsProxy: string | null;
  logLevel: Level;
  /** Default per-key token bucket: refill rate per second and bucket size. A key's own limit overrides it. */
  rateLimitPerSecond: number;
  rateLimitBurst: number;
  /** Hard cap of calls in flight per key. */
  maxInFlightPerKey: number;
  sandboxPoolSize: number;
  metricsToken: string | null;
  /** Trust X-Forwarded-For (behind a load balancer). */
  trustProxy: boolean;
  userTokenTtlHours: number;
}

function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 0): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be an integer >= ${min}, got "${raw}"`);
  return n;
}

const LEVELS: readonly Level[] = ['debug', 'info', 'warn', 'error'];

export function readSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  const logLevel = (env.LOG_LEVEL ?? 'info') as Level;
  if (!LEVELS.includes(logLevel)) throw new Error(`LOG_LEVEL must be one of ${LEVELS.join(', ')}, got "${env.LOG_LEVEL}"`);
  return {
    port: int(env, 'PORT', 8080, 0),
    dataDir: resolve(env.DATA_DIR || './data'),
    operationsFile: resolve(env.OPERATIONS_FILE || './operations.yaml'),
    databaseUrl: env.DATABASE_URL || null,
    redisUrl: env.REDIS_URL || null,
    httpsProxy: env.HTTPS_PROXY || env.https_proxy || null,
    logLevel,
    rateLimitPerSecond: int(env, 'RATE_LIMIT_PER_SECOND', 50, 1),
    rateLimitBurst: int(env, 'RATE_LIMIT_BURST', 100, 1),
    maxInFlightPerKey: int(env, 'MAX_IN_FLIGHT_PER_KEY', 20, 1),
    sandboxPoolSize: int(env, 'SANDBOX_POOL_SIZE', availableParallelism(), 1),
    metricsToken: env.METRICS_TOKEN || null,
    trustProxy: env.TRUST_PROXY === '1' || env.TRUST_PROXY === 'true',
    userTokenTtlHours: int(env, 'USER_TOKEN_TTL_HOURS', 24 * 7, 1),
  };
}
