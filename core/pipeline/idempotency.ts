// Idempotency-Key: a retry with the same key (per user, 24 h) gets the stored response and is not charged
// again; the same key with a different request is 409. Only successes are stored: a failed call costs
// nothing, so its retry simply runs again.
import { deny } from '../http/errors.js';
import { hashOf } from './canonical.js';
import type { ApiCall, Stage } from './call.js';
import type { Services } from '../services.js';

const TTL_MS = 24 * 3600 * 1000;

async function tryClaim(s: Services, key: string, hash: string, userId: number): Promise<boolean> {
  const now = Date.now();
  const res = await s.store.db
    .insertInto('idempotency')
    .values({ user_id: userId, idem_key: key, request_hash: hash, state: 'pending', status: null, response: null, created_at: now, expires_at: now + TTL_MS })
    .onConflict((oc) => oc.columns(['user_id', 'idem_key']).doNothing())
    .executeTakeFirst();
  return Number(res.numInsertedOrUpdatedRows ?? 0n) === 1;
}

export const beginIdempotency: Stage = async (call, s) => {
  const raw = call.headers['idempotency-key'];
  if (raw === undefined) return undefined;
  const key = String(raw).trim();
  if (!/^[\x21-\x7e]{1,255}$/.test(key)) return deny('INVALID_INPUT', 'Idempotency-Key must be 1-255 visible ASCII characters.');
  const userId = call.identity!.userId;
  const hash = hashOf(call.method, call.operation!.code, call.input);
  if (await tryClaim(s, key, hash, userId)) {
    call.idempotency = { key, hash };
    return undefined;
  }
  const row = await s.store.db.selectFrom('idempotency').selectAll().where('user_id', '=', userId).where('idem_key', '=', key).executeTakeFirst();
  if (row && Number(row.expires_at) <= Date.now()) {
    // An expired record is as good as none: drop it and claim the key afresh.
    await s.store.db.deleteFrom('idempotency').where('user_id', '=', userId).where('idem_key', '=', key).execute();
    if (await tryClaim(s, key, hash, userId)) {
      call.idempotency = { key, hash };
      return undefined;
    }
  }
  if (!row || row.request_hash !== hash) {
    return deny('IDEMPOTENCY_CONFLICT', 'This Idempotency-Key was already used with a different request.');
  }
  if (row.state !== 'done' || row.response === null) {
    return deny('IDEMPOTENCY_CONFLICT', 'A request with this Idempotency-Key is still running; retry when it has finished.', 1);
  }
  call.idempotency = { key, hash, replay: { status: Number(row.status), body: row.response } };
  return undefined;
};

/** After the response is built: store a success, forget a failure so it can be retried. */
export async function finishIdempotency(call: ApiCall, s: Services, status: number, body: string): Promise<void> {
  const idem = call.idempotency;
  if (!idem || idem.replay) return;
  const where = s.store.db.updateTable('idempotency');
  if (status < 300) {
    await where.set({ state: 'done', status, response: body }).where('user_id', '=', call.identity!.userId).where('idem_key', '=', idem.key).execute();
  } else {
    await s.store.db.deleteFrom('idempotency').where('user_id', '=', call.identity!.userId).where('idem_key', '=', idem.key).execute();
  }
}
