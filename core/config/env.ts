// Environment -> typed settings, parsed once in main.ts. Every variable is documented in README "Configuration".

import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import type { Level, LogFormat } from '../kernel/logger.js';
import { type AccountSettings, readAccountSettings } from './account-env.js';
import { type EdgeSettings, parseTrustProxy, readEdgeSettings, type TrustProxy } from './edge-env.js';
import { readLogSettings } from './log-env.js';
import { type MailSettings, readMailSettings } from './mail-env.js';
import { type PaymentSettings, readPaymentSettings } from './payment-env.js';

export interface Settings {
  port: number;
  dataDir: string;
  operationsFile: string;
  databaseUrl: string | null;
  redisUrl: string | null;
  httpsProxy: string | null;
  logLevel: Level;
  /** LOG_FORMAT: json, or pretty (default when stderr is a terminal). */
  logFormat: LogFormat;
  /** Default per-key token bucket: refill rate per second and bucket size. A key's own limit overrides it. */
  rateLimitPerSecond: number;
  rateLimitBurst: number;
  /** Hard cap of calls in flight per key. */
  maxInFlightPerKey: number;
  sandboxPoolSize: number;
  metricsToken: string | null;
  /** Proxies in front whose X-Forwarded-For entries are believed (TRUST_PROXY: hop count or CIDR list); null = none. */
  trustProxy: TrustProxy;
  /** Connection caps, socket timeouts, header size, metrics listener (core/config/edge-env.ts). */
  edge: EdgeSettings;
  userTokenTtlHours: number;
  /** PostgreSQL schema to use (search_path); null = the server default. Lets many deployments share one database. */
  databaseSchema: string | null;
  /** Prefix of every Redis key and channel, so several deployments (or test runs) can share one Redis. */
  redisPrefix: string;
  /** How long a hold may outlive its call's deadline before the sweeper counts its process as dead. */
  holdGraceMs: number;
  /** Lease of a Redis slot: a live process renews its slots; a dead one's slots free within this time. */
  slotLeaseMs: number;
  /**
   * Call-log rows and refused-request counts older than this many days are deleted hourly (at least 2 are kept);
   * 0 keeps them all.
   */
  callLogRetentionDays: number;
  /** Payment-log rows older than this many days are deleted hourly; 0 keeps them all. */
  paymentLogRetentionDays: number;
  /**
   * Per address group (IPv4 address, IPv6 /64): refused requests (an /api call without a valid key, a payment
   * notification that fails verification) allowed per second after a burst; past it they are answered 429.
   */
  refusedRatePerSecond: number;
  refusedBurst: number;
  /** Canaries (core/health): run by `serve` unless CANARIES=off; results kept CANARY_RETENTION_DAYS days. */
  canaries: { enabled: boolean; retentionDays: number };
  /** Largest serialised plugin result sent or cached; a bigger one fails the call, uncharged (MAX_RESULT_BYTES). */
  maxResultBytes: number;
  /** Deadline of every Redis command; one timeout opens the breaker and calls take the degraded path. */
  redisCommandTimeoutMs: number;
  /** PostgreSQL: wait this long for a connection, and for any one statement, before answering 503. */
  dbConnectTimeoutMs: number;
  dbStatementTimeoutMs: number;
  /** Folders holding plugin folders (PLUGIN_DIRS, colon-separated); null = ./plugins. */
  pluginDirs: string[] | null;
  /** Online payments and trial credit (core/config/payment-env.ts). */
  payments: PaymentSettings;
  /** SMTP or the outbox (core/config/mail-env.ts). */
  mail: MailSettings;
  /** Sign-up switches, email verification, admin 2FA, link base URL (core/config/account-env.ts). */
  accounts: AccountSettings;
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
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(raw))
    throw new Error(`DATABASE_SCHEMA must be a lower-case identifier, got "${raw}"`);
  return raw;
}

/** /metrics shows revenue per operation: a short token could be guessed, so the start is refused instead. */
export const METRICS_TOKEN_MIN = 16;
function metricsToken(raw: string | undefined): string | null {
  if (!raw) return null;
  if (raw.length < METRICS_TOKEN_MIN || /\s/.test(raw))
    throw new Error(
      `METRICS_TOKEN must be at least ${METRICS_TOKEN_MIN} characters without spaces (it guards the revenue figures on /metrics); generate one with: openssl rand -hex 24`,
    );
  return raw;
}

export function readSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  const log = readLogSettings(env);
  return {
    port: int(env, 'PORT', 8080, 0),
    dataDir: resolve(env.DATA_DIR || './data'),
    operationsFile: resolve(env.OPERATIONS_FILE || './operations.yaml'),
    databaseUrl: env.DATABASE_URL || null,
    redisUrl: env.REDIS_URL || null,
    httpsProxy: env.HTTPS_PROXY || env.https_proxy || null,
    logLevel: log.level,
    logFormat: log.format,
    rateLimitPerSecond: int(env, 'RATE_LIMIT_PER_SECOND', 50, 1),
    rateLimitBurst: int(env, 'RATE_LIMIT_BURST', 100, 1),
    maxInFlightPerKey: int(env, 'MAX_IN_FLIGHT_PER_KEY', 20, 1),
    sandboxPoolSize: int(env, 'SANDBOX_POOL_SIZE', availableParallelism(), 1),
    metricsToken: metricsToken(env.METRICS_TOKEN),
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    edge: readEdgeSettings(env),
    userTokenTtlHours: int(env, 'USER_TOKEN_TTL_HOURS', 24 * 7, 1),
    databaseSchema: schemaName(env.DATABASE_SCHEMA),
    redisPrefix: env.REDIS_PREFIX ?? 'tollgate:',
    holdGraceMs: int(env, 'HOLD_GRACE_MS', 60_000, 0),
    slotLeaseMs: int(env, 'SLOT_LEASE_MS', 15_000, 300),
    callLogRetentionDays: int(env, 'CALL_LOG_RETENTION_DAYS', 90, 0),
    paymentLogRetentionDays: int(env, 'PAYMENT_LOG_RETENTION_DAYS', 400, 0),
    refusedRatePerSecond: int(env, 'REFUSED_RATE_PER_SECOND', 2, 1),
    refusedBurst: int(env, 'REFUSED_BURST', 60, 1),
    canaries: {
      enabled: !/^(?:off|false|0|no)$/i.test(env.CANARIES ?? ''),
      retentionDays: int(env, 'CANARY_RETENTION_DAYS', 35, 1),
    },
    maxResultBytes: int(env, 'MAX_RESULT_BYTES', 4 * 1024 * 1024, 1024),
    redisCommandTimeoutMs: int(env, 'REDIS_COMMAND_TIMEOUT_MS', 250, 10),
    dbConnectTimeoutMs: int(env, 'DB_CONNECT_TIMEOUT_MS', 3000, 100),
    dbStatementTimeoutMs: int(env, 'DB_STATEMENT_TIMEOUT_MS', 5000, 100),
    pluginDirs: env.PLUGIN_DIRS
      ? env.PLUGIN_DIRS.split(':')
          .filter(Boolean)
          .map((d) => resolve(d))
      : null,
    payments: readPaymentSettings(env),
    mail: readMailSettings(env),
    accounts: readAccountSettings(env, int(env, 'PORT', 8080, 0)),
  };
}
