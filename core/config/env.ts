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
  /** PostgreSQL schema to use (search_path); null = the server default. Lets many deployments share one database. */
  databaseSchema: string | null;
  /** Prefix of every Redis key and channel, so several deployments (or test runs) can share one Redis. */
  redisPrefix: string;
  /** How long a hold may outlive its call's deadline before the sweeper counts its process as dead. */
  holdGraceMs: number;
  /** Lease of a Redis slot: a live process renews its slots; a dead one's slots free within this time. */
  slotLeaseMs: number;
  /** Folders holding plugin folders (PLUGIN_DIRS, colon-separated); null = ./plugins. */
  pluginDirs: string[] | null;
}

function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 0): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be an integer >= ${min}, got "${raw}"`);
  return n;
}

/** The schema name goes into a connection option, so only plain identifiers are accepted. */
function schemaName(raw: string | undefined): string | null {
  if (!raw) return null;
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(raw)) throw new Error(`DATABASE_SCHEMA must be a lower-case identifier, got "${raw}"`);
  return raw;
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
    databaseSchema: schemaName(env.DATABASE_SCHEMA),
    redisPrefix: env.REDIS_PREFIX ?? 'tollgate:',
    holdGraceMs: int(env, 'HOLD_GRACE_MS', 60_000, 0),
    slotLeaseMs: int(env, 'SLOT_LEASE_MS', 15_000, 300),
    pluginDirs: env.PLUGIN_DIRS ? env.PLUGIN_DIRS.split(':').filter(Boolean).map((d) => resolve(d)) : null,
  };
}
