// API keys: several per user, secret shown once, only its SHA-256 stored, optional per-key limits.
import type { Kysely, Selectable, Updateable } from 'kysely';
import type { ApiKeysTable, Database } from '../store/schema.js';
import { keyDisplayPrefix, newApiKeySecret, sha256Hex } from './secrets.js';

export type ApiKeyRow = Selectable<ApiKeysTable>;

export interface KeyLimits {
  allowed_codes?: string[] | null;
  ip_allow?: string[] | null;
  expires_at?: number | null;
  rate_limit_per_sec?: number | null;
  rate_limit_burst?: number | null;
  max_concurrency?: number | null;
  /** micro-TOKEN per UTC+8 day */
  daily_spend_cap?: number | null;
}

/** What authentication needs to know about a key, loaded in one query and cached briefly. */
export interface KeyIdentity {
  keyId: number;
  userId: number;
  keyStatus: 'active' | 'disabled';
  userStatus: 'active' | 'disabled';
  expiresAt: number | null;
  allowedCodes: string[] | null;
  ipAllow: string[] | null;
  rateLimitPerSec: number | null;
  rateLimitBurst: number | null;
  maxConcurrency: number | null;
  dailySpendCap: number | null;
}

function limitColumns(limits: KeyLimits): Updateable<ApiKeysTable> {
  const out: Updateable<ApiKeysTable> = {};
  if ('allowed_codes' in limits) out.allowed_codes = limits.allowed_codes ? JSON.stringify(limits.allowed_codes) : null;
  if ('ip_allow' in limits) out.ip_allow = limits.ip_allow ? JSON.stringify(limits.ip_allow) : null;
  if ('expires_at' in limits) out.expires_at = limits.expires_at ?? null;
  if ('rate_limit_per_sec' in limits) out.rate_limit_per_sec = limits.rate_limit_per_sec ?? null;
  if ('rate_limit_burst' in limits) out.rate_limit_burst = limits.rate_limit_burst ?? null;
  if ('max_concurrency' in limits) out.max_concurrency = limits.max_concurrency ?? null;
  if ('daily_spend_cap' in limits) out.daily_spend_cap = limits.daily_spend_cap ?? null;
  return out;
}

export async function createApiKey(
  db: Kysely<Database>,
  userId: number,
  name: string,
  limits: KeyLimits = {},
): Promise<{ key: ApiKeyRow; secret: string }> {
  const secret = newApiKeySecret();
  const key = await db
    .insertInto('api_keys')
    .values({
      user_id: userId,
      name,
      prefix: keyDisplayPrefix(secret),
      key_hash: sha256Hex(secret),
      status: 'active',
      created_at: Date.now(),
      last_used_at: null,
      allowed_codes: null,
      ip_allow: null,
      expires_at: null,
      rate_limit_per_sec: null,
      rate_limit_burst: null,
      max_concurrency: null,
      daily_spend_cap: null,
      deleted_at: null,
      ...limitColumns(limits),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { key, secret };
}

export async function updateApiKey(
  db: Kysely<Database>,
  userId: number,
  keyId: number,
  changes: KeyLimits & { name?: string; status?: 'active' | 'disabled' },
): Promise<ApiKeyRow | undefined> {
  const set: Updateable<ApiKeysTable> = limitColumns(changes);
  if (changes.name !== undefined) set.name = changes.name;
  if (changes.status !== undefined) set.status = changes.status;
  if (Object.keys(set).length === 0) {
    return db.selectFrom('api_keys').selectAll().where('id', '=', keyId).where('user_id', '=', userId).where('deleted_at', 'is', null).executeTakeFirst();
  }
  return db
    .updateTable('api_keys')
    .set(set)
    .where('id', '=', keyId)
    .where('user_id', '=', userId)
    .where('deleted_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

/** Soft delete: the row stays for the call log's sake, the key never authenticates again. */
export async function deleteApiKey(db: Kysely<Database>, userId: number, keyId: number): Promise<boolean> {
  const res = await db
    .updateTable('api_keys')
    .set({ deleted_at: Date.now(), status: 'disabled' })
    .where('id', '=', keyId)
    .where('user_id', '=', userId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

export async function listApiKeys(db: Kysely<Database>, userId: number): Promise<ApiKeyRow[]> {
  return db.selectFrom('api_keys').selectAll().where('user_id', '=', userId).where('deleted_at', 'is', null).orderBy('id').execute();
}

function parseList(json: string | null): string[] | null {
  return json ? (JSON.parse(json) as string[]) : null;
}

export async function loadKeyIdentity(db: Kysely<Database>, secretHash: string): Promise<KeyIdentity | null> {
  const row = await db
    .selectFrom('api_keys')
    .innerJoin('users', 'users.id', 'api_keys.user_id')
    .select([
      'api_keys.id as keyId',
      'api_keys.user_id as userId',
      'api_keys.status as keyStatus',
      'users.status as userStatus',
      'api_keys.expires_at as expiresAt',
      'api_keys.allowed_codes as allowedCodes',
      'api_keys.ip_allow as ipAllow',
      'api_keys.rate_limit_per_sec as rateLimitPerSec',
      'api_keys.rate_limit_burst as rateLimitBurst',
      'api_keys.max_concurrency as maxConcurrency',
      'api_keys.daily_spend_cap as dailySpendCap',
    ])
    .where('api_keys.key_hash', '=', secretHash)
    .where('api_keys.deleted_at', 'is', null)
    .executeTakeFirst();
  if (!row) return null;
  return {
    ...row,
    keyId: Number(row.keyId),
    userId: Number(row.userId),
    expiresAt: row.expiresAt === null ? null : Number(row.expiresAt),
    dailySpendCap: row.dailySpendCap === null ? null : Number(row.dailySpendCap),
    allowedCodes: parseList(row.allowedCodes),
    ipAllow: parseList(row.ipAllow),
  };
}
