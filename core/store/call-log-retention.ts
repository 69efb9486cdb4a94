// CALL_LOG_RETENTION_DAYS: old call-log rows are deleted, oldest first, in small batches by primary key with an
// event-loop turn between them, so a large backlog never blocks the (single-threaded) SQLite process or holds a
// long lock. Ids grow with time (rows are written within a second of their call), so the oldest rows are the
// lowest ids and each batch reads only its own rows. The ledger is never touched: money has its own history.
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import type { Logger } from '../kernel/logger.js';
import type { Database } from './schema.js';

const DAY_MS = 24 * 3600 * 1000;
/** Today's spending caps and plan quotas are counted from the log after a restart: never prune that window. */
export const MIN_RETENTION_DAYS = 2;
const BATCH = 2_000;
const EVERY_MS = 3600_000;

/** Deletes call-log rows created before `cutoff` (epoch ms), oldest first; returns how many. */
export async function pruneCallLog(db: Kysely<Database>, cutoff: number, batch = BATCH): Promise<number> {
  let deleted = 0;
  for (;;) {
    const rows = await db.selectFrom('call_log').select(['id', 'created_at']).orderBy('id').limit(batch).execute();
    const old = rows.filter((r) => Number(r.created_at) < cutoff).map((r) => Number(r.id));
    if (old.length > 0) {
      await db.deleteFrom('call_log').where('id', 'in', old).execute();
      deleted += old.length;
    }
    // A batch holding a row inside the retention window means the old rows are gone.
    if (old.length < rows.length || rows.length < batch) return deleted;
    await nextTurn();
  }
}

/** Prunes once shortly after start, then every hour; `days` 0 keeps everything. Returns a stop function. */
export function startCallLogRetention(db: Kysely<Database>, days: number, logger: Logger): () => void {
  if (days <= 0) return () => undefined;
  const keepDays = Math.max(MIN_RETENTION_DAYS, days);
  let running = false;
  const sweep = (): void => {
    if (running) return;
    running = true;
    pruneCallLog(db, Date.now() - keepDays * DAY_MS)
      .then((n) => n > 0 && logger.info('call log pruned', { rows: n, retention_days: keepDays }))
      .catch((e: Error) => logger.error('call log pruning failed', { reason: e.message }))
      .finally(() => (running = false));
  };
  const first = setTimeout(sweep, 60_000);
  const timer = setInterval(sweep, EVERY_MS);
  first.unref();
  timer.unref();
  return () => {
    clearTimeout(first);
    clearInterval(timer);
  };
}
