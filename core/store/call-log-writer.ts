// Call log rows of uncharged calls are buffered and written in batches: one transaction per flush instead of one
// write per call keeps the hot path off the database (and on the gateway's SQLite file, off the event loop:
// writer-thread.ts). A charged call's row is written with its charge, in the capture transaction. Keys'
// last_used_at is refreshed in the same flush. A batch that fails (disk full,
// database down) stays queued and is retried on the next flush instead of being dropped; only beyond
// MAX_QUEUED rows are the oldest given up, so an outage cannot exhaust memory.
import { type Kysely, SqliteAdapter } from 'kysely';
import type { Logger } from '../kernel/logger.js';
import { type CallLogRow, insertCallLogRows, touchKeys } from './call-log-rows.js';
import { inTransaction } from './group-commit.js';
import type { Database } from './schema.js';
import type { WriterThread } from './writer-thread.js';

export type { CallLogRow } from './call-log-rows.js';

export interface CallLogWriter {
  add(row: CallLogRow): void;
  /** The key was used (its row went in with the charge): refresh last_used_at in the next flush. */
  touchKey(keyId: number | null, at: number): void;
  /**
   * Hand over the buffered rows to be written by someone else's transaction (a charge's), so the log keeps call
   * order; `requeue` gives them back if that transaction rolls back.
   */
  drain(): CallLogRow[];
  requeue(rows: CallLogRow[]): void;
  /**
   * Write these rows before the caller is answered (a call made free by the plan quota: the day's quota is rebuilt
   * from them after a restart). Rows of the same turn share one transaction: the call-log thread's, or on SQLite
   * without it the group commit; on PostgreSQL one multi-row insert, no BEGIN/COMMIT round trips.
   */
  writeNow(rows: CallLogRow[]): Promise<void>;
  /** Write everything buffered now (tests and shutdown call this). */
  flush(): Promise<void>;
  close(): Promise<void>;
}

const MAX_QUEUED = 100_000;

export interface CallLogWriterOptions {
  /** How often buffered rows are written. */
  intervalMs?: number;
  /** A flush starts at once when this many rows are buffered. */
  maxBatch?: number;
  /** SQLite file of the gateway: batches are written by this thread while it runs (writer-thread.ts). */
  thread?: WriterThread;
}

export function createCallLogWriter(
  db: Kysely<Database>,
  logger: Logger,
  { intervalMs = 200, maxBatch = 500, thread }: CallLogWriterOptions = {},
): CallLogWriter {
  let buffer: CallLogRow[] = [];
  let lastUse = new Map<number, number>();
  let flushing: Promise<void> = Promise.resolve();
  let failing = false;
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;

  const writeBatch = async (rows: CallLogRow[], uses: Map<number, number>): Promise<void> => {
    if (rows.length === 0 && uses.size === 0) return;
    let written = 0;
    try {
      if (thread?.alive) await thread.write(rows, uses);
      // PostgreSQL with key times alone (a billed call's row goes in with its charge): one statement, no BEGIN
      // and COMMIT round trips around it.
      else if (!sqlite && rows.length === 0) await touchKeys(db, uses);
      // One transaction for the rows and the key times (on SQLite the group commit: shared with the captures of
      // the same turn), not one commit per statement.
      else
        await inTransaction(db, async (trx) => {
          await insertCallLogRows(trx, rows);
          await touchKeys(trx, uses);
        });
      written = rows.length;
      if (failing) logger.info('call log writes work again');
      failing = false;
    } catch (err) {
      // Requeue what was not written, in front of newer rows; the key times are only a convenience.
      const left = rows.slice(written);
      buffer = [...left, ...buffer];
      const dropped = buffer.length - MAX_QUEUED;
      if (dropped > 0) buffer.splice(0, dropped);
      if (!failing || dropped > 0) {
        logger.error('call log write failed; rows kept for retry', {
          queued: buffer.length,
          dropped: Math.max(0, dropped),
          reason: (err as Error).message,
        });
      }
      failing = true;
    }
  };

  const flush = (): Promise<void> => {
    flushing = flushing.then(() => {
      const rows = buffer;
      const uses = lastUse;
      buffer = [];
      lastUse = new Map();
      for (const r of rows) if (r.key_id) uses.set(r.key_id, Math.max(uses.get(r.key_id) ?? 0, r.created_at));
      return writeBatch(rows, uses);
    });
    return flushing;
  };

  const timer = setInterval(() => void flush(), intervalMs);
  timer.unref();

  return {
    add(row) {
      buffer.push(row);
      if (buffer.length >= maxBatch && !failing) void flush();
    },
    drain() {
      if (buffer.length === 0) return [];
      const rows = buffer;
      buffer = [];
      for (const r of rows) if (r.key_id) lastUse.set(r.key_id, Math.max(lastUse.get(r.key_id) ?? 0, r.created_at));
      return rows;
    },
    requeue(rows) {
      if (rows.length) buffer = [...rows, ...buffer];
    },
    touchKey(keyId, at) {
      if (keyId) lastUse.set(keyId, Math.max(lastUse.get(keyId) ?? 0, at));
    },
    writeNow(rows) {
      if (thread?.alive) return thread.writeNow(rows);
      if (sqlite) return inTransaction(db, (trx) => insertCallLogRows(trx, rows));
      return insertCallLogRows(db, rows);
    },
    flush,
    async close() {
      clearInterval(timer);
      await flush();
    },
  };
}
