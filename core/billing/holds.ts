// Holds reserve a call's price before the plugin runs (available = balance - held), so concurrent calls can
// never spend the same money twice. Capture keeps a hold as one ledger row; giving it back writes nothing. On
// PostgreSQL a hold is a row, placed and captured in the group commit (pg-money.ts); what is here is the capture
// that needs a transaction of its own (an Idempotency-Key's stored answer), the give-back and the sweeper.
import { type Kysely, sql, type Transaction } from 'kysely';
import type { Logger } from '../kernel/logger.js';
import { asMicro } from '../kernel/money.js';
import { inTransaction } from '../store/group-commit.js';
import { PREPARED } from '../store/pg-prepared.js';
import type { Database } from '../store/schema.js';
import { runBilling } from './billing-sql.js';

/** Take the hold row (exactly one caller gets it), or null when it is already gone. */
async function takeHold(
  trx: Transaction<Database>,
  holdId: string,
): Promise<{ userId: number; amount: number } | null> {
  const res = await runBilling<{ user_id: unknown; amount: unknown }>(trx, 'takeHold', [holdId]);
  const row = res.rows[0];
  return row ? { userId: Number(row.user_id), amount: asMicro(row.amount) } : null;
}

/** More writes that must commit or roll back with the charge (the call-log row, the idempotent response). */
export type WithCharge = (trx: Transaction<Database>, balanceAfter: number) => Promise<void>;

/** The call-log row a PostgreSQL capture writes in its own statement (charged = the hold's amount). */
export interface CaptureLogRow {
  requestId: string;
  userId: number | null;
  keyId: number | null;
  operation: string | null;
  cached: number;
  durationMs: number;
  pluginMs: number | null;
  ip: string | null;
  createdAt: number;
  upstream: string | null;
  upstreamCost: number;
}

/**
 * PostgreSQL: the whole capture (hold taken, balance debited, ledger row, call-log row) as one statement, so a
 * billed call costs one round trip to commit instead of five. A statement is atomic on its own; writes that must
 * join it (`withCharge`) put it in a transaction. A reused ledger reference fails the statement (unique_violation).
 */
export async function captureHoldPg(
  db: Kysely<Database>,
  holdId: string,
  operation: string,
  log: CaptureLogRow,
  withCharge?: WithCharge,
  before?: (trx: Transaction<Database>) => Promise<void>,
): Promise<number> {
  const run = async (q: Kysely<Database>): Promise<number> => {
    const now = Date.now();
    const res = await sql<{ balance: unknown }>`${sql.raw(PREPARED)}
      with h as (delete from holds where id = ${holdId} returning user_id, amount),
      u as (
        update users set held = users.held - h.amount, balance = users.balance - h.amount from h
        where users.id = h.user_id returning users.id as user_id, users.balance as balance, h.amount as amount
      ),
      l as (
        insert into ledger (user_id, amount, balance_after, kind, ref, operation, note, created_at)
        select user_id, -amount, balance, 'charge', ${holdId}::text, ${operation}::text, null, ${now}::bigint from u returning id
      ),
      c as (
        insert into call_log (request_id, user_id, key_id, operation, status, error_code, charged, cached, free_reason, duration_ms, plugin_ms, ip, created_at, upstream, upstream_cost)
        select ${log.requestId}::text, ${log.userId}::bigint, ${log.keyId}::bigint, ${log.operation}::text, 200, null, amount, ${log.cached}::int, null,
          ${log.durationMs}::float8, ${log.pluginMs}::float8, ${log.ip}::text, ${log.createdAt}::bigint, ${log.upstream}::text, ${log.upstreamCost}::bigint from u returning id
      )
      select u.balance from u, l, c`.execute(q);
    const row = res.rows[0];
    if (!row) throw new Error(`hold ${holdId} is gone (expired and swept?)`);
    const balanceAfter = asMicro(row.balance);
    if (withCharge) await withCharge(q as Transaction<Database>, balanceAfter);
    return balanceAfter;
  };
  if (!withCharge && !before) return run(db);
  return db.transaction().execute(async (trx) => {
    if (before) await before(trx);
    return run(trx);
  });
}

/** Give the reserved amount back. Writes no ledger row. Idempotent. */
export async function giveBackHold(db: Kysely<Database>, holdId: string): Promise<void> {
  await inTransaction(db, async (trx) => {
    const hold = await takeHold(trx, holdId);
    if (hold) await runBilling(trx, 'unreserve', [hold.amount, hold.userId]);
  });
}

/** Give back holds whose expiry passed (their process died mid-call). `before = Infinity` gives back all. */
export async function giveBackExpiredHolds(db: Kysely<Database>, before: number): Promise<number> {
  const expired = await db
    .selectFrom('holds')
    .select('id')
    .where('expires_at', '<', Number.isFinite(before) ? before : Number.MAX_SAFE_INTEGER)
    .execute();
  for (const h of expired) await giveBackHold(db, h.id);
  return expired.length;
}

/**
 * Give-back scheme with many processes on one database: a hold expires at its call's deadline + HOLD_GRACE_MS,
 * and every process sweeps expired holds on this interval. A live process always settles its holds before
 * that (the sandbox enforces the deadline), so only a dead process's holds are ever swept: they are given back
 * within timeout + grace + one interval. Sweeping from several processes at once is safe: giveBackHold deletes
 * the row first, so exactly one of them gives the amount back.
 */
export function startHoldSweeper(db: Kysely<Database>, graceMs: number, logger: Logger): () => void {
  const everyMs = Math.min(30_000, Math.max(250, Math.floor(graceMs / 2)));
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    giveBackExpiredHolds(db, Date.now())
      .then((n) => n > 0 && logger.warn('released holds of a stopped process', { holds: n }))
      .catch((e: Error) => logger.error('hold sweep failed', { reason: e.message }))
      .finally(() => (running = false));
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
