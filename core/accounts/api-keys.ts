// API keys: several per user, secret shown once, only its SHA-256 stored, optional per-key limits.
import { CompiledQuery, type Kysely, type Selectable, sql, type Updateable } from 'kysely';
import { MAX_MICRO } from '../kernel/money.js';
import type { ApiKeysTable, Database } from '../store/schema.js';
import { keyDisplayPrefix, newApiKeySecret, sha256Hex } from './secrets.js';

// The previous secret's hash never leaves this module.
export type ApiKeyRow = Omit<Selectable<ApiKeysTable>, 'prev_key_hash'>;

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

// The spend cap is read as text and converted here: a cap written before amounts were range-checked may exceed
// 2^53, and PostgreSQL's int8 parser (core/store/database.ts) refuses such a value, which broke listing the keys.
const COLUMNS = [
  'id',
  'user_id',
  'name',
  'prefix',
  'key_hash',
  'status',
  'created_at',
  'last_used_at',
  'expires_at',
  'allowed_codes',
  'ip_allow',
  'rate_limit_per_sec',
  'rate_limit_burst',
  'max_concurrency',
  'deleted_at',
  'prev_expires_at',
] as const;
const capAsText = sql<string | null>`cast(daily_spend_cap as text)`;

/** A stored cap in micro-TOKEN; one beyond the maximum an amount may have counts as the maximum. */
export function readCap(value: string | number | null): number | null {
  if (value === null) return null;
  const n = Number(value);
  return Number.isSafeInteger(n) && n >= 0 && n <= MAX_MICRO ? n : MAX_MICRO;
}

type RawKeyRow = Omit<ApiKeyRow, 'daily_spend_cap'> & { daily_spend_cap: string | null };
const withCap = (row: RawKeyRow): ApiKeyRow => ({ ...row, daily_spend_cap: readCap(row.daily_spend_cap) });

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
      prev_key_hash: null,
      prev_expires_at: null,
      ...limitColumns(limits),
    })
    .returning([...COLUMNS, capAsText.as('daily_spend_cap')])
    .executeTakeFirstOrThrow();
  return { key: withCap(key), secret };
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
    const row = await db
      .selectFrom('api_keys')
      .select([...COLUMNS, capAsText.as('daily_spend_cap')])
      .where('id', '=', keyId)
      .where('user_id', '=', userId)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    return row && withCap(row);
  }
  const row = await db
    .updateTable('api_keys')
    .set(set)
    .where('id', '=', keyId)
    .where('user_id', '=', userId)
    .where('deleted_at', 'is', null)
    .returning([...COLUMNS, capAsText.as('daily_spend_cap')])
    .executeTakeFirst();
  return row && withCap(row);
}

/**
 * A new secret for the same key (id, name, limits and history stay). The old secret keeps working until
 * now + graceMs, as the key's `prev_key_hash`; 0 ends it at once. Rotating again within the grace period
 * retires the older secret: only the latest two are ever valid.
 */
export async function rotateApiKey(
  db: Kysely<Database>,
  userId: number,
  keyId: number,
  graceMs: number,
  now = Date.now(),
): Promise<{ key: ApiKeyRow; secret: string } | undefined> {
  const secret = newApiKeySecret();
  const row = await db
    .updateTable('api_keys')
    .set({
      // SET reads the row as it was before the update (SQLite and PostgreSQL alike): this is the old hash.
      prev_key_hash: graceMs > 0 ? sql<string>`key_hash` : null,
      prev_expires_at: graceMs > 0 ? now + graceMs : null,
      key_hash: sha256Hex(secret),
      prefix: keyDisplayPrefix(secret),
    })
    .where('id', '=', keyId)
    .where('user_id', '=', userId)
    .where('deleted_at', 'is', null)
    .returning([...COLUMNS, capAsText.as('daily_spend_cap')])
    .executeTakeFirst();
  return row && { key: withCap(row), secret };
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
  const rows = await db
    .selectFrom('api_keys')
    .select([...COLUMNS, capAsText.as('daily_spend_cap')])
    .where('user_id', '=', userId)
    .where('deleted_at', 'is', null)
    .orderBy('id')
    .execute();
  return rows.map(withCap);
}

function parseList(json: string | null): string[] | null {
  return json ? (JSON.parse(json) as string[]) : null;
}

/** The columns of a key identity as loadKeyIdentity's query returns them. */
interface IdentityRow {
  keyId: number | bigint;
  userId: number | bigint;
  keyStatus: 'active' | 'disabled';
  userStatus: 'active' | 'disabled';
  expiresAt: number | bigint | null;
  allowedCodes: string | null;
  ipAllow: string | null;
  rateLimitPerSec: number | null;
  rateLimitBurst: number | null;
  maxConcurrency: number | null;
  dailySpendCap: string | null;
  keyHash: string;
  prevExpiresAt: number | bigint | null;
}

function identityQuery(db: Kysely<Database>, secretHash: string) {
  return (
    db
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
        sql<string | null>`cast(api_keys.daily_spend_cap as text)`.as('dailySpendCap'),
        'api_keys.key_hash as keyHash',
        'api_keys.prev_expires_at as prevExpiresAt',
      ])
      // A rotated key's previous secret matches too; its grace end acts as an expiry (403 KEY_EXPIRED after it).
      .where((eb) => eb.or([eb('api_keys.key_hash', '=', secretHash), eb('api_keys.prev_key_hash', '=', secretHash)]))
      .where('api_keys.deleted_at', 'is', null)
  );
}

/**
 * The query's text, built once per database: the key cache reads every active key again each second, and building
 * the query through Kysely's builder cost more of the event loop than running it (docs/performance.md "Costs cited
 * by the code"). Its only parameters are the hash, twice.
 */
const identityText = new WeakMap<Kysely<Database>, string>();
const SENTINEL = '\u0000key-hash';

function identitySql(db: Kysely<Database>): string {
  let text = identityText.get(db);
  if (text === undefined) {
    const compiled = identityQuery(db, SENTINEL).compile();
    if (compiled.parameters.length !== 2 || compiled.parameters.some((p) => p !== SENTINEL))
      throw new Error('key identity query: unexpected parameters');
    text = compiled.sql;
    identityText.set(db, text);
  }
  return text;
}

export async function loadKeyIdentity(db: Kysely<Database>, secretHash: string): Promise<KeyIdentity | null> {
  const { rows } = await db.executeQuery<IdentityRow>(CompiledQuery.raw(identitySql(db), [secretHash, secretHash]));
  const row = rows[0];
  if (!row) return null;
  const { keyHash, prevExpiresAt, ...rest } = row;
  let expiresAt = row.expiresAt === null ? null : Number(row.expiresAt);
  if (keyHash !== secretHash && prevExpiresAt !== null)
    expiresAt = Math.min(expiresAt ?? Infinity, Number(prevExpiresAt));
  return {
    ...rest,
    keyId: Number(row.keyId),
    userId: Number(row.userId),
    expiresAt,
    dailySpendCap: readCap(row.dailySpendCap),
    allowedCodes: parseList(row.allowedCodes),
    ipAllow: parseList(row.ipAllow),
  };
}
