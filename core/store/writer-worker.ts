// The writer thread's script (writer-thread.ts starts it): one connection of its own, call-log rows and guarded
// statement scripts in one transaction per message, each script in a savepoint, and the log's catch-up after the
// checkpointer's passes (checkpointer.ts).
// Plain JavaScript run as the worker's script (no TypeScript loader there); module path and SQL in workerData.
export const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = 5000');
db.pragma('synchronous = NORMAL');
db.pragma('wal_autocheckpoint = 0');
// Prepared on first use: the thread starts before the gateway has run its migrations on a new database.
const statements = new Map();
// Script statements by number: each text comes once, with the first message that uses it (see \`encode\`).
const texts = [];
const prepared = (text) => {
  let s = statements.get(text);
  if (!s) statements.set(text, (s = db.prepare(text)));
  return s;
};
const bind = (params, rows) =>
  params.map((p) => (p !== null && typeof p === 'object' ? rows[p.step][p.column] : p));
/** One script in a savepoint: its result row (the first step's), { refused } when a guard found no row, or
 *  { failed } when a statement threw; either way its writes are undone and the others' stay. */
const runScript = (steps) => {
  prepared('savepoint script').run();
  const undo = () => {
    prepared('rollback to savepoint script').run();
    prepared('release savepoint script').run();
  };
  try {
    const rows = [];
    for (const step of steps) {
      const s = prepared(step.sql);
      const params = bind(step.params, rows);
      const row = s.reader ? s.get(params) : (s.run(params), undefined);
      if (step.refuse !== null && row === undefined) {
        undo();
        return { refused: step.refuse };
      }
      rows.push(row);
    }
    prepared('release savepoint script').run();
    return { row: rows[0] };
  } catch (err) {
    // A storage fault can end the whole transaction, savepoint included: then the transaction fails with it.
    try { undo(); } catch { throw err; }
    return { failed: { code: String(err && err.code), message: String(err && err.message) } };
  }
};
const write = db.transaction((m) => {
  const insert = m.rows.length > 0 ? prepared(workerData.insert) : undefined;
  for (let i = 0; i < m.rows.length; i += m.width) insert.run(m.rows.slice(i, i + m.width));
  const touch = m.keys.length > 0 ? prepared(workerData.touch) : undefined;
  for (let i = 0; i < m.keys.length; i += 2) touch.run(m.keys[i + 1], m.keys[i], m.keys[i + 1]);
  const results = [];
  const code = m.code;
  for (let i = 0; i < code.length; ) {
    const steps = [];
    for (let n = code[i++]; n > 0; n--) {
      const count = code[i + 2];
      steps.push({ sql: texts[code[i]], refuse: code[i + 1], params: code.slice(i + 3, i + 3 + count) });
      i += 3 + count;
    }
    results.push(runScript(steps));
  }
  return results;
});
// The checkpointer's passes run beside this thread's writes and end a few frames behind them (CheckpointSignal,
// checkpointer.ts): after one has, the rest is copied here, between two transactions, so the next starts the log
// from its beginning. Once the checkpointer is gone, SQLite checkpoints in this connection's own commits instead.
const signal = workerData.signal;
let caughtUpTo = 0;
let ownCheckpoints = false;
const catchUp = () => {
  if (!signal) return;
  if (!ownCheckpoints && Atomics.load(signal, 1) === 1) {
    ownCheckpoints = true;
    db.pragma('wal_autocheckpoint = 1000');
  }
  if (Atomics.load(signal, 0) === caughtUpTo) return;
  caughtUpTo = Atomics.load(signal, 0);
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch (err) {
    parentPort.postMessage({ fault: { code: String(err && err.code), message: String(err && err.message) } });
  }
};
parentPort.on('message', (m) => {
  if (m === 'stop') {
    db.close();
    parentPort.close();
    return;
  }
  for (const text of m.texts) texts.push(text); // before the transaction: later messages count on them
  try {
    parentPort.postMessage({ id: m.id, results: write.immediate(m) });
  } catch (err) {
    parentPort.postMessage({ id: m.id, code: String(err && err.code), message: String(err && err.message) });
  }
  catchUp(); // after the answer: the calls of this transaction do not wait for it
});
`;
