// SQLite's automatic checkpoint runs inside the COMMIT that takes the write-ahead log past 1000 pages: that one
// commit copies the pages into the database file and fsyncs both files on the event loop, while every call of its
// group waits for it (a share of the gateway's CPU, and its slowest answers). The gateway instead hands the
// checkpoint to a worker thread with a connection of its own. PASSIVE never waits for the writer and never makes it
// wait. SQLite starts the log over at a write that finds all of it copied; under steady load that needs the writer
// thread's catch-up after each pass (see CheckpointSignal), and the log stays small. A pass that fails (disk full,
// I/O error) is reported as a storage fault, so /api/health looks at the disk (store-health.ts), and the next pass
// tries again. If the worker cannot run at all, the gateway's own connection and the writer thread's go back to
// checkpointing automatically.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type SQLite from 'better-sqlite3';
import type { Logger } from '../kernel/logger.js';

/** How often the worker copies the log back; a pass with nothing new reads one header. */
const EVERY_MS = 200;
/** SQLite's own default, restored when the worker is gone. */
const AUTO_CHECKPOINT_PAGES = 1000;

// Plain JavaScript run as the worker's script (no TypeScript loader there); the module path comes in workerData.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = 5000');
const signal = workerData.signal;
const pass = () => {
  try {
    const [r] = db.pragma('wal_checkpoint(PASSIVE)');
    // What the writer thread added during the pass is left for its catch-up (CheckpointSignal, slot 0: passes).
    if (signal && r.log > 0) Atomics.add(signal, 0, 1);
  } catch (err) {
    parentPort.postMessage({ code: String(err && err.code), message: String(err && err.message) });
  }
};
const timer = setInterval(pass, workerData.everyMs);
parentPort.on('message', () => {
  clearInterval(timer);
  pass();
  db.close();
  parentPort.close();
});
`;

export interface Checkpointer {
  /** One last pass, then the worker ends (the database stays usable by the connection). */
  stop(): Promise<void>;
}

/** How often a failing pass is logged (it is retried every EVERY_MS). */
const LOG_FAILURE_EVERY_MS = 60_000;

/**
 * Shared with the writer thread (writer-thread.ts), two Int32 slots. 0: passes over a log that was not empty. A pass
 * copies the log as it was when the pass began; SQLite starts the log over only when a write finds all of it copied,
 * and under steady load the writer thread has always added frames during the pass: the log grew by ~120 MB a second
 * in `npm run bench`, and every frame written to a growing file cost the writer a new block of it. So the writer
 * thread copies the rest after such a pass, between two of its transactions when nothing else writes; this pass,
 * concurrent with the writes, did the bulk (and the slow syncs) of it. 1: set once this worker is gone, so the
 * writer thread checkpoints in its own commits, as the gateway's connection does then.
 */
export type CheckpointSignal = Int32Array;

export function newCheckpointSignal(): CheckpointSignal {
  return new Int32Array(new SharedArrayBuffer(8));
}

export function startCheckpointer(
  sqlite: SQLite.Database,
  file: string,
  logger: Logger,
  onFault: (err: unknown) => void = () => undefined,
  signal?: CheckpointSignal,
): Checkpointer {
  sqlite.pragma('wal_autocheckpoint = 0');
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { module: createRequire(import.meta.url).resolve('better-sqlite3'), file, everyMs: EVERY_MS, signal },
  });
  worker.unref(); // never what keeps the process alive
  let stopping = false;
  let exited = false;
  worker.once('exit', () => {
    exited = true;
  });
  const fallBack = (reason: string): void => {
    if (stopping || !sqlite.open) return;
    sqlite.pragma(`wal_autocheckpoint = ${AUTO_CHECKPOINT_PAGES}`);
    if (signal) Atomics.store(signal, 1, 1);
    logger.warn('background checkpoints stopped; the database checkpoints in its own commits again', { reason });
  };
  let loggedAt = 0;
  worker.on('message', (failure: { code: string; message: string }) => {
    onFault(Object.assign(new Error(failure.message), { code: failure.code }));
    if (Date.now() - loggedAt < LOG_FAILURE_EVERY_MS) return;
    loggedAt = Date.now();
    logger.warn('background checkpoint failed; retrying', { reason: failure.message, code: failure.code });
  });
  worker.once('error', (err) => fallBack(err.message));
  worker.once('exit', (code) => fallBack(`exit ${code}`));
  return {
    stop: () =>
      new Promise<void>((resolve) => {
        if (stopping || exited) return resolve();
        stopping = true;
        worker.ref(); // the process now waits for the worker's last pass
        worker.once('exit', () => resolve());
        worker.postMessage('stop');
      }),
  };
}
