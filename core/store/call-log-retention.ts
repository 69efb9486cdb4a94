// Retention: old call-log rows (CALL_LOG_RETENTION_DAYS, with the refused-request counts) and old payment-log rows
// (PAYMENT_LOG_RETENTION_DAYS) are deleted, oldest first, in small batches by primary key with an event-loop turn
// between them, so a large backlog never blocks the (single-threaded) SQLite process or holds a long lock. Ids grow
// with time (rows are written within a second of their event), so the oldest rows are the lowest ids and each
// batch reads only its own rows. The ledger is never touched: money has its own history.
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import type { Logger } from '../kernel/logger.js';
import type { Database } from './schema.js';

const DAY_MS = 24 * 3600 * 1000;
/** Today's spending caps and plan quotas are counted from the log after a restart: never prune that window. */
export const MIN_RETENTION_DAYS = 2;
const BATCH = 2_000;
const EVERY_MS = 3600_000;

/** Deletes rows of `table` created before `cutoff` (epoch ms), oldest first; returns how many. */
async function pruneById(
  db: Kysely<Database>,
  table: 'call_log' | 'payment_log',
  cutoff: number,
  batch: number,
): Promise<number> {
  // Both tables have an auto-increment id and created_at; the cast lets one body serve both.
  const t = table as 'call_log';
  let deleted = 0;
  for (;;) {
    const rows = await db.selectFrom(t).select(['id', 'created_at']).orderBy('id').limit(batch).execute();
    const old = rows.filter((r) => Number(r.created_at) < cutoff).map((r) => Number(r.id));
    if (old.length > 0) {
      await db.deleteFrom(t).where('id', 'in', old).execute();
      deleted += old.length;
    }
    // A batch holding a row inside the retention window means the old rows are gone.
    if (old.length < rows.length || rows.length < batch) return deleted;
    await nextTurn();
  }
}

/** Deletes call-log rows created before `cutoff` (epoch ms), oldest first; returns how many. */
export function pruneCallLog(db: Kysely<Database>, cutoff: number, batch = BATCH): Promise<number> {
  return pruneById(db, 'call_log', cutoff, batch);
}

/** Deletes payment-log rows created before `cutoff` (epoch ms), oldest first; returns how many. */
export function prunePaymentLog(db: Kysely<Database>, cutoff: number, batch = BATCH): Promise<number> {
  return pruneById(db, 'payment_log', cutoff, batch);
}

/** Deletes refused-request counts of minutes before `cutoff`; their unique index starts with the minute. */
export async function pruneRefusedCounts(db: Kysely<Database>, cutoff: number): Promise<number> {
  const r = await db.deleteFrom('refused_requests').where('minute', '<', cutoff).executeTakeFirst();
  return Number(r.numDeletedRows);
}

/**
 * Prunes once shortly after start, then every hour; `days` 0 keeps the call log (and the refused counts), and
 * `paymentDays` 0 the payment log. Returns a stop function.
 */
export function startCallLogRetention(db: Kysely<Database>, days: number, logger: Logger, paymentDays = 0): () => void {
  if (days <= 0 && paymentDays <= 0) return () => undefined;
  const keepDays = Math.max(MIN_RETENTION_DAYS, days);
  let running = false;
  const sweep = async (): Promise<void> => {
    const now = Date.now();
    if (days > 0) {
      const rows = await pruneCallLog(db, now - keepDays * DAY_MS);
      const counts = await pruneRefusedCounts(db, now - keepDays * DAY_MS);
      if (rows + counts > 0) logger.info('call log pruned', { rows, refused_counts: counts, retention_days: keepDays });
    }
    if (paymentDays > 0) {
      const rows = await prunePaymentLog(db, now - paymentDays * DAY_MS);
      if (rows > 0) logger.info('payment log pruned', { rows, retention_days: paymentDays });
    }
  };
  const run = (): void => {
    if (running) return;
    running = true;
    sweep()
      .catch((e: Error) => logger.error('log pruning failed', { reason: e.message }))
      .finally(() => (running = false));
  };
  const first = setTimeout(run, 60_000);
  const timer = setInterval(run, EVERY_MS);
  first.unref();
  timer.unref();
  return () => {
    clearTimeout(first);
    clearInterval(timer);
  };
}
