// Call log rows are buffered and written in batches: one multi-row INSERT per flush instead of one write per
// call keeps the hot path off the database. Keys' last_used_at is refreshed in the same flush.
import type { Insertable, Kysely } from 'kysely';
import type { CallLogTable, Database } from './schema.js';
import type { Logger } from '../http/logger.js';

export type CallLogRow = Insertable<CallLogTable>;

export interface CallLogWriter {
  add(row: CallLogRow): void;
  /** Write everything buffered now (tests and shutdown call this). */
  flush(): Promise<void>;
  close(): Promise<void>;
}

export function createCallLogWriter(db: Kysely<Database>, logger: Logger, intervalMs = 200, maxBatch = 500): CallLogWriter {
  let buffer: CallLogRow[] = [];
  let flushing: Promise<void> = Promise.resolve();

  const writeBatch = async (rows: CallLogRow[]): Promise<void> => {
    if (rows.length === 0) return;
    try {
      // SQLite caps bound parameters per statement; 14 columns x 60 rows stays well below it.
      for (let i = 0; i < rows.length; i += 60) await db.insertInto('call_log').values(rows.slice(i, i + 60)).execute();
      const lastUse = new Map<number, number>();
      for (const r of rows) if (r.key_id) lastUse.set(r.key_id, Math.max(lastUse.get(r.key_id) ?? 0, r.created_at));
      for (const [keyId, at] of lastUse) {
        await db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', keyId).execute();
      }
    } catch (err) {
      logger.error('call log write failed', { rows: rows.length, reason: (err as Error).message });
    }
  };

  const flush = (): Promise<void> => {
    const rows = buffer;
    buffer = [];
    flushing = flushing.then(() => writeBatch(rows));
    return flushing;
  };

  const timer = setInterval(() => void flush(), intervalMs);
  timer.unref();

  return {
    add(row) {
      buffer.push(row);
      if (buffer.length >= maxBatch) void flush();
    },
    flush,
    async close() {
      clearInterval(timer);
      await flush();
    },
  };
}
