// Holds reserve a call's price before the plugin runs (available = balance - held), so concurrent calls can
// never spend the same money twice. Capture turns a hold into one ledger row; release writes nothing.
import { sql, type Kysely, type Transaction } from 'kysely';
import { runBilling } from './billing-sql.js';
import type { Logger } from '../http/logger.js';
import type { Database } from '../store/schema.js';
import { insertLedgerRow } from './ledger.js';
import { asMicro } from './money.js';

export interface HoldRequest {
  id: string;
  userId: number;
  amount: number;
  /** A hold outlives its call only if the process died; it is released once this passes. */
  expiresAt: number;
}

/** Reserve atomically. False when available balance is below the amount. */
export async function placeHold(db: Kysely<Database>, h: HoldRequest, dialect: 'sqlite' | 'postgres' = 'sqlite'): Promise<boolean> {
  if (dialect === 'postgres') {
    // One statement: the user's row stays locked only while it runs, not for a four-round-trip transaction,
    // so concurrent calls of one user (from any process) queue on the row far less.
    const res = await sql<{ id: string }>`
      with reserved as (
        update users set held = held + ${h.amount} where id = ${h.userId} and balance - held >= ${h.amount} returning id
      )
      insert into holds (id, user_id, amount, created_at, expires_at)
      select ${h.id}, id, ${h.amount}, ${Date.now()}, ${h.expiresAt} from reserved
      returning id`.execute(db);
    return res.rows.length === 1;
  }
  return db.transaction().execute(async (trx) => {
    const res = await runBilling(trx, 'reserve', [h.amount, h.userId, h.amount]);
    if (Number(res.numAffectedRows ?? 0n) !== 1) return false;
    await runBilling(trx, 'insertHold', [h.id, h.userId, h.amount, Date.now(), h.expiresAt]);
    return true;
  });
}

/** Take the hold row (exactly one caller gets it), or null when it is already gone. */
async function takeHold(trx: Transaction<Database>, holdId: string): Promise<{ userId: number; amount: number } | null> {
  const res = await runBilling<{ user_id: unknown; amount: unknown }>(trx, 'takeHold', [holdId]);
  const row = res.rows[0];
  return row ? { userId: Number(row.user_id), amount: asMicro(row.amount) } : null;
}

/** Turn the hold into a charge: one ledger row (ref = hold id = request id). Returns the balance after. */
export async function captureHold(db: Kysely<Database>, holdId: string, operation: string): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const hold = await takeHold(trx, holdId);
    if (!hold) throw new Error(`hold ${holdId} is gone (expired and swept?)`);
    const updated = await runBilling<{ balance: unknown }>(trx, 'spendHeld', [hold.amount, hold.amount, hold.userId]);
    const balanceAfter = asMicro(updated.rows[0].balance);
    await insertLedgerRow(trx, { userId: hold.userId, amount: -hold.amount, kind: 'charge', ref: holdId, operation }, balanceAfter);
    return balanceAfter;
  });
}

/** Give the reserved amount back. Writes no ledger row. Idempotent. */
export async function releaseHold(db: Kysely<Database>, holdId: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const hold = await takeHold(trx, holdId);
    if (hold) await runBilling(trx, 'unreserve', [hold.amount, hold.userId]);
  });
}

/** Release holds whose expiry passed (their process died mid-call). `before = Infinity` releases all. */
export async function releaseExpiredHolds(db: Kysely<Database>, before: number): Promise<number> {
  const expired = await db
    .selectFrom('holds')
    .select('id')
    .where('expires_at', '<', Number.isFinite(before) ? before : Number.MAX_SAFE_INTEGER)
    .execute();
  for (const h of expired) await releaseHold(db, h.id);
  return expired.length;
}

/**
 * Release scheme with many processes on one database: a hold expires at its call's deadline + HOLD_GRACE_MS,
 * and every process sweeps expired holds on this interval. A live process always settles its holds before
 * that (the sandbox enforces the deadline), so only a dead process's holds are ever swept: they are released
 * within timeout + grace + one interval. Sweeping from several processes at once is safe: releaseHold deletes
 * the row first, so exactly one of them gives the amount back.
 */
export function startHoldSweeper(db: Kysely<Database>, graceMs: number, logger: Logger): () => void {
  const everyMs = Math.min(30_000, Math.max(250, Math.floor(graceMs / 2)));
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    releaseExpiredHolds(db, Date.now())
      .then((n) => n > 0 && logger.warn('released holds of a stopped process', { holds: n }))
      .catch((e: Error) => logger.error('hold sweep failed', { reason: e.message }))
      .finally(() => (running = false));
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
