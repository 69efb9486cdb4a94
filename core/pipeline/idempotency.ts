// Idempotency-Key: a retry with the same key (per user, 24 h) gets the stored response and is not charged
// again; the same key with a different request is 409. Only successes are stored: a failed call costs
// nothing, so its retry simply runs again.
//
// A call claims the key as `pending` with a lease (its operation's timeout + HOLD_GRACE_MS) and its request id
// as owner. A live process always settles within the lease (the sandbox enforces the deadline), so a pending
// claim whose lease ran out belongs to a dead process and a retry takes it over. A charged success stores its
// response in the capture transaction (settle.ts), only while it still owns the claim: so a billed call is
// either replayable or, if its claim was taken over, rolled back. Never both charged twice nor lost.
import type { Kysely } from 'kysely';
import { DETAILS } from '../http/error-details.js';
import { type Denial, deny } from '../http/errors.js';
import { hashOf } from '../kernel/canonical.js';
import type { Services } from '../services.js';
import type { Database } from '../store/schema.js';
import type { Stage, Validated } from './call.js';
import { reserve } from './reservations.js';

export const DONE_TTL_MS = 24 * 3600 * 1000;

async function tryClaim(s: Services, call: Validated, key: string, hash: string, leaseMs: number): Promise<boolean> {
  const now = Date.now();
  const res = await s.store.db
    .insertInto('idempotency')
    .values({
      user_id: call.identity.userId,
      idem_key: key,
      request_hash: hash,
      state: 'pending',
      status: null,
      response: null,
      created_at: now,
      expires_at: now + leaseMs,
      owner: call.requestId,
    })
    .onConflict((oc) => oc.columns(['user_id', 'idem_key']).doNothing())
    .executeTakeFirst();
  return Number(res.numInsertedOrUpdatedRows ?? 0n) === 1;
}

/** Take over a pending claim whose lease ran out (its call died); exactly one retry wins. */
async function takeOver(s: Services, call: Validated, key: string, hash: string, leaseMs: number): Promise<boolean> {
  const now = Date.now();
  const res = await s.store.db
    .updateTable('idempotency')
    .set({ request_hash: hash, owner: call.requestId, created_at: now, expires_at: now + leaseMs })
    .where('user_id', '=', call.identity.userId)
    .where('idem_key', '=', key)
    .where('state', '=', 'pending')
    .where('expires_at', '<=', now)
    .executeTakeFirst();
  return Number(res.numUpdatedRows ?? 0n) === 1;
}

/** The claim is this call's until settled: a success's answer is stored, a failure's claim is dropped. */
function claimed(call: Validated, s: Services, key: string, hash: string): undefined {
  call.idempotency = { key, hash };
  const finish = (o: { status?: number; body?: string }): Promise<void> =>
    finishIdempotency(call, s, o.status ?? 500, o.body ?? '');
  reserve(call, { name: 'idempotency claim', afterAnswer: true, keep: finish, giveBack: finish });
  return undefined;
}

/** Most calls carry no Idempotency-Key: for them the stage is over without a promise. */
export const beginIdempotency: Stage<Validated> = (call, s) => {
  const raw = call.headers['idempotency-key'];
  return raw === undefined ? undefined : claimOrReplay(call, s, raw);
};

async function claimOrReplay(call: Validated, s: Services, raw: string | string[]): Promise<Denial | undefined> {
  const key = String(raw).trim();
  if (!/^[\x21-\x7e]{1,255}$/.test(key)) return deny('INVALID_INPUT', DETAILS.idempotencyKeyFormat());
  const userId = call.identity.userId;
  const hash = hashOf(call.method, call.operation.code, call.input);
  const leaseMs = call.operation.timeoutMs + s.settings.holdGraceMs;
  if (await tryClaim(s, call, key, hash, leaseMs)) return claimed(call, s, key, hash);
  const row = await s.store.db
    .selectFrom('idempotency')
    .selectAll()
    .where('user_id', '=', userId)
    .where('idem_key', '=', key)
    .executeTakeFirst();
  const now = Date.now();
  if (row && row.state === 'pending' && Number(row.expires_at) <= now) {
    if (await takeOver(s, call, key, hash, leaseMs)) {
      return claimed(call, s, key, hash);
    }
  } else if (row && Number(row.expires_at) <= now) {
    // An expired record is as good as none: drop it and claim the key afresh.
    await s.store.db
      .deleteFrom('idempotency')
      .where('user_id', '=', userId)
      .where('idem_key', '=', key)
      .where('state', '=', 'done')
      .execute();
    if (await tryClaim(s, call, key, hash, leaseMs)) {
      return claimed(call, s, key, hash);
    }
  }
  if (!row || row.request_hash !== hash) {
    return deny('IDEMPOTENCY_CONFLICT', DETAILS.idempotencyMismatch());
  }
  if (row.state !== 'done' || row.response === null) {
    const retryAfter = Math.max(1, Math.ceil((Number(row.expires_at) - now) / 1000));
    return deny('IDEMPOTENCY_CONFLICT', DETAILS.idempotencyRunning(), Math.min(retryAfter, 5));
  }
  call.idempotency = { key, hash, replay: { status: Number(row.status), body: row.response } };
  return undefined;
}

/**
 * After the response is built: store an uncharged success (a charged one was stored with its charge), forget a
 * failure so it can be retried. Both only while this call still owns the claim.
 */
async function finishIdempotency(call: Validated, s: Services, status: number, body: string): Promise<void> {
  const idem = call.idempotency;
  if (!idem || idem.replay || call.captured.bodyOut !== undefined) return;
  const userId = call.identity.userId;
  if (status < 300) {
    await s.store.db
      .updateTable('idempotency')
      .set({ state: 'done', status, response: body, expires_at: Date.now() + DONE_TTL_MS, owner: null })
      .where('user_id', '=', userId)
      .where('idem_key', '=', idem.key)
      .where('owner', '=', call.requestId)
      .execute();
  } else {
    await s.store.db
      .deleteFrom('idempotency')
      .where('user_id', '=', userId)
      .where('idem_key', '=', idem.key)
      .where('owner', '=', call.requestId)
      .execute();
  }
}

/** At the start of a single process (SQLite): every pending claim belongs to a call that died with the last run. */
export async function releasePendingClaims(db: Kysely<Database>): Promise<number> {
  const res = await db.deleteFrom('idempotency').where('state', '=', 'pending').executeTakeFirst();
  return Number(res.numDeletedRows ?? 0n);
}
