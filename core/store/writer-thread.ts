// The gateway's SQLite writes that are plain data, done by a worker thread with a connection of its own, so the
// event loop does not spend its time inside SQLite: call-log rows (buffered ones, and those a call waits for) and
// guarded statement scripts (a billed call's capture: balance, ledger row, call-log row). On the event loop a flush
// of 500 buffered rows held every call for milliseconds, and a free cache hit spent a fifth of its time there
// (docs/performance.md "Costs cited by the code").
//
// Taking turns with the gateway's own write transactions is the write gate's job (write-gate.ts). Rows and scripts
// that callers wait for are sent together: one transaction for the calls one callback finished (the isolate batch
// of a turn), or for all that finished while the previous one was in flight (a group commit, as group-commit.ts
// on the gateway's connection). Each script runs in a savepoint, so one that is refused (a guard found no row) is
// undone alone, and every caller is answered after the COMMIT. A transaction that fails (disk full, I/O error)
// fails all of it and is reported as a storage fault. If the worker ends with a transaction unanswered, it
// committed whole or not at all: its last row, or each script's own `committed` query, says which; later work goes
// back to the gateway's connection (`alive` is false).
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { CompiledQuery, type Kysely } from 'kysely';
import type { Logger } from '../kernel/logger.js';
import { type CallLogRow, callLogParams, INSERT_CALL_LOG, TOUCH_KEY } from './call-log-rows.js';
import type { CheckpointSignal } from './checkpointer.js';
import { isStorageFault } from './database-errors.js';
import type { Database } from './schema.js';
import { writeGateOf } from './write-gate.js';
import { WORKER_SOURCE } from './writer-worker.js';

const WIDTH = 17; // parameters per row of INSERT_CALL_LOG

/** A parameter taken from the row an earlier step of the same script returned. */
export interface FromStep {
  step: number;
  column: string;
}

export interface ScriptStep {
  sql: string;
  params: ReadonlyArray<string | number | null | FromStep>;
  /** A statement that must return a row: when it returns none, the script is undone and refused with this code. */
  refuse?: string;
}

export interface Script {
  steps: ScriptStep[];
  /** Asked on the gateway's connection if the worker ends before answering: a row means the script committed (and
   *  is its result), none that it did not. */
  committed: { sql: string; params: ReadonlyArray<string | number | null> };
}

/** The first step's row; or nothing of it was written: a guard refused it (its code), or a statement failed. */
export type ScriptResult =
  | { row: Record<string, unknown> }
  | { refused: string }
  | { failed: { code: string; message: string } };

export interface WriterThread {
  /** False once the worker is gone: callers then write on the gateway's connection again. */
  readonly alive: boolean;
  /** Rows and key times in one transaction of the worker's, in this process's turn at the write gate. */
  write(rows: readonly CallLogRow[], uses: ReadonlyMap<number, number>): Promise<void>;
  /** Rows whose calls wait for them: those of one event-loop turn go in one transaction with its scripts. */
  writeNow(rows: readonly CallLogRow[]): Promise<void>;
  /** A script whose call waits for it, in the transaction of this turn (see the top of this file). */
  run(script: Script): Promise<ScriptResult>;
  /** The worker ends after what it was given (the database stays usable by the gateway's connection); one still
   *  busy after STOP_WAIT_MS (a lock held by another process) is ended where it is, as if it had died. */
  stop(): Promise<void>;
  /** Ends the worker at once, wherever it is: what it was writing is then looked up as after a crash. */
  terminate(): Promise<void>;
}

const STOP_WAIT_MS = 10_000;

/** Transactions of waited-for work sent to the worker and not yet answered (see `schedule`). */
const TURNS_IN_FLIGHT = 2;

interface Message {
  id: number;
  rows: unknown[];
  width: number;
  keys: number[];
  /** Statement texts new to the worker, numbered on from the ones it has. */
  texts: string[];
  /** The scripts, flat: per script its step count, then per step the statement's number, its refusal code (or
   *  null) and its parameter count, then the parameters. */
  code: unknown[];
}

interface Reply {
  id: number;
  results?: ScriptResult[];
  code?: string;
  message?: string;
  fault?: { code: string; message: string };
}

interface Pending {
  ok: (results: ScriptResult[]) => void;
  fail: (err: Error) => void;
  /** The batch's last row, to look up if the worker ends before answering. */
  lastRequestId: string | undefined;
  scripts: Script[];
}

interface Turn {
  rows: CallLogRow[];
  scripts: Script[];
  waiters: Array<{ done: (results: ScriptResult[]) => void; fail: (err: unknown) => void }>;
}

export function startWriterThread(
  db: Kysely<Database>,
  file: string,
  logger: Logger,
  onFault: (err: unknown) => void,
  /** Shared with the checkpointer (checkpointer.ts). */
  checkpointSignal?: CheckpointSignal,
): WriterThread {
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: {
      module: createRequire(import.meta.url).resolve('better-sqlite3'),
      file,
      insert: INSERT_CALL_LOG,
      touch: TOUCH_KEY,
      signal: checkpointSignal,
    },
  });
  worker.unref(); // never what keeps the process alive
  const pending = new Map<number, Pending>();
  let seq = 0;
  let alive = true;
  let stopping = false;

  worker.on('message', (reply: Reply) => {
    // A catch-up checkpoint that failed (disk full, I/O error): a storage fault, as a pass of the checkpointer's.
    if (reply.fault) return onFault(Object.assign(new Error(reply.fault.message), { code: reply.fault.code }));
    const p = pending.get(reply.id);
    if (!p) return;
    pending.delete(reply.id);
    if (reply.results) return p.ok(reply.results);
    const err = Object.assign(new Error(reply.message), { code: reply.code });
    if (isStorageFault(err)) onFault(err);
    p.fail(err);
  });

  const lookUp = async (text: string, params: ReadonlyArray<unknown>): Promise<Record<string, unknown> | null> => {
    const res = await db.executeQuery<Record<string, unknown>>(CompiledQuery.raw(text, [...params]));
    return res.rows[0] ?? null;
  };

  /** The worker is gone: a transaction it did not answer committed whole or not at all; look up which. */
  const ended = async (reason: string): Promise<void> => {
    if (!alive) return;
    alive = false;
    if (!stopping) logger.warn('writer thread ended; the gateway writes on its own connection again', { reason });
    for (const [id, p] of pending) {
      pending.delete(id);
      try {
        const rowsCommitted =
          p.lastRequestId === undefined ||
          (await lookUp('select 1 as one from call_log where request_id = ? limit 1', [p.lastRequestId])) !== null;
        if (!rowsCommitted) {
          p.fail(new Error(`writer thread ended (${reason})`));
          continue;
        }
        // Each script says for itself: a refused script left no row, as one of a transaction that did not commit.
        const results: ScriptResult[] = [];
        for (const s of p.scripts) {
          const row = await lookUp(s.committed.sql, s.committed.params);
          results.push(
            row ? { row } : { failed: { code: 'WRITER_ENDED', message: `writer thread ended (${reason})` } },
          );
        }
        p.ok(results);
      } catch (err) {
        p.fail(err as Error);
      }
    }
  };
  let ending: Promise<void> = Promise.resolve();
  const end = (reason: string): void => {
    ending = ending.then(() => ended(reason));
  };
  worker.once('error', (err) => end(err.message));
  worker.once('exit', (code) => end(`exit ${code}`));

  // Scripts as one flat array of plain values, statements by number: copying objects with their SQL text to the
  // worker cost the event loop five times as much (docs/performance.md "Costs cited by the code").
  const numbers = new Map<string, number>();
  const encode = (scripts: Script[]): Pick<Message, 'texts' | 'code'> => {
    const texts: string[] = [];
    const code: unknown[] = [];
    for (const { steps } of scripts) {
      code.push(steps.length);
      for (const step of steps) {
        let n = numbers.get(step.sql);
        if (n === undefined) {
          n = numbers.size;
          numbers.set(step.sql, n);
          texts.push(step.sql);
        }
        code.push(n, step.refuse ?? null, step.params.length);
        for (const p of step.params) code.push(p);
      }
    }
    return { texts, code };
  };

  /** One transaction of the worker's, in this process's turn at the write gate. */
  const transact = (rows: readonly CallLogRow[], uses: ReadonlyMap<number, number>, scripts: Script[]) =>
    writeGateOf(db).run(
      'thread',
      () =>
        new Promise<ScriptResult[]>((ok, fail) => {
          if (!alive) return fail(new Error('writer thread ended'));
          const flat: unknown[] = [];
          for (const r of rows) flat.push(...callLogParams(r));
          const keys: number[] = [];
          for (const [keyId, at] of [...uses].sort((a, b) => a[0] - b[0])) keys.push(keyId, at);
          const id = ++seq;
          pending.set(id, { ok, fail, lastRequestId: rows.at(-1)?.request_id, scripts });
          const message: Message = { id, rows: flat, width: WIDTH, keys, ...encode(scripts) };
          worker.postMessage(message);
        }),
    );

  // At most two turns' transactions in flight (one being written, the next queued behind it, so the worker never
  // waits for a round trip): the calls that finish meanwhile form one more, sent when one is answered. The worker
  // would run them one after the other anyway; as one transaction the pages every commit writes (the users row,
  // the ends of the ledger and the log) are written once, and one message carries them.
  let turn: Turn | null = null;
  let scheduled = false;
  let inFlight = 0;
  const schedule = (): void => {
    if (scheduled || inFlight >= TURNS_IN_FLIGHT || !turn) return;
    scheduled = true;
    process.nextTick(sendTurn);
  };
  const sendTurn = (): void => {
    scheduled = false;
    if (!turn || inFlight >= TURNS_IN_FLIGHT) return;
    const { rows, scripts, waiters } = turn;
    turn = null;
    inFlight++;
    const answered = (): void => {
      inFlight--;
      schedule();
    };
    transact(rows, new Map(), scripts).then(
      (results) => {
        answered();
        for (const w of waiters) w.done(results);
      },
      (err: unknown) => {
        answered();
        for (const w of waiters) w.fail(err);
      },
    );
  };
  /**
   * Joins the next transaction. It is sent once the promise work of the current callback has settled
   * (process.nextTick runs after the microtasks queued before it): every call that one callback finished (the
   * isolate batch of a turn, kernel/turn-end.ts) joins first, and no event-loop turn is waited for (setImmediate
   * waited for the next turn's I/O and made a billed call's commit later).
   */
  const join = (): Turn => {
    if (!turn) turn = { rows: [], scripts: [], waiters: [] };
    schedule();
    return turn;
  };

  return {
    get alive() {
      return alive;
    },
    write: async (rows, uses) => void (await transact(rows, uses, [])),
    writeNow: (rows) =>
      new Promise<void>((ok, fail) => {
        const t = join();
        t.rows.push(...rows);
        t.waiters.push({ done: () => ok(), fail });
      }),
    run: (script) =>
      new Promise<ScriptResult>((ok, fail) => {
        const t = join();
        const index = t.scripts.push(script) - 1;
        t.waiters.push({ done: (results) => ok(results[index]), fail });
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        if (!alive) return resolve();
        stopping = true;
        worker.ref(); // the process now waits for the worker to finish what it was given
        const late = setTimeout(() => void worker.terminate(), STOP_WAIT_MS);
        worker.once('exit', () => {
          clearTimeout(late);
          resolve();
        });
        worker.postMessage('stop');
      }),
    terminate: async () => {
      if (!alive) return;
      await worker.terminate();
      await ending;
    },
  };
}
