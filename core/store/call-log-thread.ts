// The buffered call-log rows (uncharged calls: free cache hits, failures, free operations) and keys' last-use times
// written by a worker thread with a connection of its own. On the event loop, a flush of 500 rows held it for
// milliseconds at a time: a free cache hit spent ~10 us of its ~52 us there, and every call waiting behind a flush
// was answered late (issue 14: cache-hit row +24% and p99 6 -> 3 ms without these writes on the loop). A charged
// call's row is not written here: it commits with its charge, in the capture.
//
// Taking turns with the gateway's own write transactions is the write gate's job (write-gate.ts). A batch the
// worker reports failed (disk full, I/O error) is a storage fault, and the writer keeps its rows for the next
// flush. If the worker ends, what it was writing is looked up (the batch committed whole or not at all), and later
// batches go back to the gateway's connection.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { type Kysely, sql } from 'kysely';
import type { Logger } from '../kernel/logger.js';
import { type CallLogRow, callLogParams, INSERT_CALL_LOG, TOUCH_KEY } from './call-log-rows.js';
import { isStorageFault } from './database-errors.js';
import type { Database } from './schema.js';
import { writeGateOf } from './write-gate.js';

// Plain JavaScript run as the worker's script (no TypeScript loader there); module path and SQL in workerData.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = 5000');
db.pragma('synchronous = NORMAL');
db.pragma('wal_autocheckpoint = 0');
// Prepared at the first batch: the thread starts before the gateway has run its migrations on a new database.
let write;
const prepare = () => {
  const insert = db.prepare(workerData.insert);
  const touch = db.prepare(workerData.touch);
  return db.transaction((rows, width, keys) => {
    for (let i = 0; i < rows.length; i += width) insert.run(rows.slice(i, i + width));
    for (let i = 0; i < keys.length; i += 2) touch.run(keys[i + 1], keys[i], keys[i + 1]);
  });
};
parentPort.on('message', (m) => {
  if (m === 'stop') {
    db.close();
    parentPort.close();
    return;
  }
  try {
    (write ??= prepare()).immediate(m.rows, m.width, m.keys);
    parentPort.postMessage({ id: m.id });
  } catch (err) {
    parentPort.postMessage({ id: m.id, code: String(err && err.code), message: String(err && err.message) });
  }
});
`;

const WIDTH = 13; // parameters per row of INSERT_CALL_LOG

export interface CallLogThread {
  /** False once the worker is gone: the writer then writes on the gateway's connection again. */
  readonly alive: boolean;
  /** Rows and key times in one transaction of the worker's, in this process's turn at the write gate. */
  write(rows: readonly CallLogRow[], uses: ReadonlyMap<number, number>): Promise<void>;
  /** Rows whose calls wait for them: those of one event-loop turn go together in one write (a group commit). */
  writeNow(rows: readonly CallLogRow[]): Promise<void>;
  /** The worker ends after what it was given (the database stays usable by the gateway's connection). */
  stop(): Promise<void>;
}

interface Pending {
  ok: () => void;
  fail: (err: Error) => void;
  /** The batch's last row, to look up if the worker ends before answering. */
  lastRequestId: string | undefined;
}

export function startCallLogThread(
  db: Kysely<Database>,
  file: string,
  logger: Logger,
  onFault: (err: unknown) => void,
): CallLogThread {
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: {
      module: createRequire(import.meta.url).resolve('better-sqlite3'),
      file,
      insert: INSERT_CALL_LOG,
      touch: TOUCH_KEY,
    },
  });
  worker.unref(); // never what keeps the process alive
  const pending = new Map<number, Pending>();
  let seq = 0;
  let alive = true;
  let stopping = false;

  worker.on('message', (reply: { id: number; code?: string; message?: string }) => {
    const p = pending.get(reply.id);
    if (!p) return;
    pending.delete(reply.id);
    if (reply.code === undefined) return p.ok();
    const err = Object.assign(new Error(reply.message), { code: reply.code });
    if (isStorageFault(err)) onFault(err);
    p.fail(err);
  });

  /** The worker is gone: a batch it did not answer either committed whole or not at all; its last row says which. */
  const ended = async (reason: string): Promise<void> => {
    if (!alive) return;
    alive = false;
    if (!stopping) logger.warn('call-log thread ended; the gateway writes the call log itself again', { reason });
    for (const [id, p] of pending) {
      pending.delete(id);
      const found =
        p.lastRequestId !== undefined &&
        (await sql`select 1 from call_log where request_id = ${p.lastRequestId} limit 1`.execute(db).catch(() => null))
          ?.rows.length === 1;
      if (found) p.ok();
      else p.fail(new Error(`call-log thread ended (${reason})`));
    }
  };
  worker.once('error', (err) => void ended(err.message));
  worker.once('exit', (code) => void ended(`exit ${code}`));

  const write = (rows: readonly CallLogRow[], uses: ReadonlyMap<number, number>): Promise<void> =>
    writeGateOf(db).run(
      () =>
        new Promise<void>((ok, fail) => {
          if (!alive) return fail(new Error('call-log thread ended'));
          const flat: unknown[] = [];
          for (const r of rows) flat.push(...callLogParams(r));
          const keys: number[] = [];
          for (const [keyId, at] of [...uses].sort((a, b) => a[0] - b[0])) keys.push(keyId, at);
          const id = ++seq;
          pending.set(id, { ok, fail, lastRequestId: rows.at(-1)?.request_id });
          worker.postMessage({ id, rows: flat, width: WIDTH, keys });
        }),
    );

  let turn: { rows: CallLogRow[]; waiters: Array<{ ok: () => void; fail: (err: unknown) => void }> } | null = null;
  const sendTurn = (): void => {
    const { rows, waiters } = turn!;
    turn = null;
    thread.write(rows, new Map()).then(
      () => {
        for (const w of waiters) w.ok();
      },
      (err: unknown) => {
        for (const w of waiters) w.fail(err);
      },
    );
  };

  const thread: CallLogThread = {
    get alive() {
      return alive;
    },
    write,
    writeNow: (rows) =>
      new Promise<void>((ok, fail) => {
        if (!turn) {
          turn = { rows: [], waiters: [] };
          setImmediate(sendTurn); // after this turn's I/O callbacks: the calls they finished add their rows first
        }
        turn.rows.push(...rows);
        turn.waiters.push({ ok, fail });
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        if (!alive) return resolve();
        stopping = true;
        worker.ref(); // the process now waits for the worker to finish what it was given
        worker.once('exit', () => resolve());
        worker.postMessage('stop');
      }),
  };
  return thread;
}
