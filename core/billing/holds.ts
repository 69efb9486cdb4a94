// Holds reserve a call's price before the plugin runs (available = balance - held), so concurrent calls can
// never spend the same money twice. Capture turns a hold into one ledger row; release writes nothing.
import { sql, type Kysely } from 'kysely';
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
    const res = await trx
      .updateTable('users')
      .set({ held: sql`held + ${h.amount}` })
      .where('id', '=', h.userId)
      .where(sql<boolean>`balance - held >= ${h.amount}`)
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) !== 1) return false;
    await trx.insertInto('holds').values({ id: h.id, user_id: h.userId, amount: h.amount, created_at: Date.now(), expires_at: h.expiresAt }).execute();
    return true;
  });
}

/** Turn the hold into a charge: one ledger row (ref = hold id = request id). Returns the balance after. */
export async function captureHold(db: Kysely<Database>, holdId: string, operation: string): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const hold = await trx.deleteFrom('holds').where('id', '=', holdId).returning(['user_id', 'amount']).executeTakeFirst();
    if (!hold) throw new Error(`hold ${holdId} is gone (expired and swept?)`);
    const amount = asMicro(hold.amount);
    const userId = Number(hold.user_id);
    // One UPDATE moves the amount out of both `held` and `balance`: balance - held is unchanged, so the
    // invariant balance >= held holds without a condition, and the row is touched once.
    const updated = await trx
      .updateTable('users')
      .set({ held: sql`held - ${amount}`, balance: sql`balance - ${amount}` })
      .where('id', '=', userId)
      .returning('balance')
      .executeTakeFirstOrThrow();
    const balanceAfter = asMicro(updated.balance);
    await insertLedgerRow(trx, { userId, amount: -amount, kind: 'charge', ref: holdId, operation }, balanceAfter);
    return balanceAfter;
  });
}

/** Give the reserved amount back. Writes no ledger row. Idempotent. */
export async function releaseHold(db: Kysely<Database>, holdId: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const hold = await trx.deleteFrom('holds').where('id', '=', holdId).returning(['user_id', 'amount']).executeTakeFirst();
    if (!hold) return;
    await trx.updateTable('users').set({ held: sql`held - ${asMicro(hold.amount)}` }).where('id', '=', Number(hold.user_id)).execute();
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
