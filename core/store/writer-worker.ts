// The writer thread's script (writer-thread.ts starts it): one connection of its own, call-log rows and guarded
// statement scripts in one transaction per message (run first without savepoints, and again with one per script
// if any script was refused or failed: see `writeAll`), and the log's catch-up after the checkpointer's passes
// (checkpointer.ts).
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
// A script's statements by their number (texts), prepared once.
const byNumber = [];
const numbered = (n) => byNumber[n] || (byNumber[n] = prepared(texts[n]));
/** Where the script that starts at \`i\` of the flat code ends. */
const scriptEnd = (code, i) => {
  for (let n = code[i++]; n > 0; n--) i += 3 + code[i + 2];
  return i;
};
/** The script's steps, read straight from the flat code: its first step's row, or { refused } when a guard found
 *  no row (its later steps not run). A statement that throws throws. */
const runSteps = (code, i) => {
  const rows = [];
  for (let n = code[i++]; n > 0; n--) {
    const s = numbered(code[i]);
    const refuse = code[i + 1];
    const count = code[i + 2];
    const params = new Array(count);
    for (let j = 0; j < count; j++) {
      const p = code[i + 3 + j];
      params[j] = p !== null && typeof p === 'object' ? rows[p.step][p.column] : p;
    }
    i += 3 + count;
    const row = s.reader ? s.get(params) : (s.run(params), undefined);
    if (refuse !== null && row === undefined) return { refused: refuse };
    rows.push(row);
  }
  return { row: rows[0] };
};
/** One script in a savepoint: its result row (the first step's), { refused } when a guard found no row, or
 *  { failed } when a statement threw; either way its writes are undone and the others' stay. */
const runScript = (code, i) => {
  prepared('savepoint script').run();
  const undo = () => {
    prepared('rollback to savepoint script').run();
    prepared('release savepoint script').run();
  };
  try {
    const result = runSteps(code, i);
    if (result.refused !== undefined) {
      undo();
      return result;
    }
    prepared('release savepoint script').run();
    return result;
  } catch (err) {
    // A storage fault can end the whole transaction, savepoint included: then the transaction fails with it.
    try { undo(); } catch { throw err; }
    return { failed: { code: String(err && err.code), message: String(err && err.message) } };
  }
};
// Thrown out of a first pass without savepoints when one of its scripts was refused or failed.
const AGAIN = new Error('again, each script in a savepoint');
const write = db.transaction((m, guarded) => {
  const insert = m.rows.length > 0 ? prepared(workerData.insert) : undefined;
  for (let i = 0; i < m.rows.length; i += m.width) insert.run(m.rows.slice(i, i + m.width));
  const touch = m.keys.length > 0 ? prepared(workerData.touch) : undefined;
  for (let i = 0; i < m.keys.length; i += 2) touch.run(m.keys[i + 1], m.keys[i], m.keys[i + 1]);
  const results = [];
  const code = m.code;
  for (let i = 0; i < code.length; i = scriptEnd(code, i)) {
    if (guarded) {
      results.push(runScript(code, i));
      continue;
    }
    let result;
    try {
      result = runSteps(code, i);
    } catch {
      throw AGAIN;
    }
    if (result.refused !== undefined) throw AGAIN;
    results.push(result);
  }
  return results;
});
/** Scripts are almost never refused (the holds in memory reserved their money), so the transaction first runs them
 *  without a savepoint each (a savepoint copies every page a script changes into its journal first); if one is
 *  refused or fails, that pass is rolled back whole and the transaction runs again from the start, each script in
 *  its savepoint, so the answers are exactly those of that second pass. */
const writeAll = (m) => {
  if (m.code.length === 0) return write.immediate(m, true);
  try {
    return write.immediate(m, false);
  } catch (err) {
    if (err !== AGAIN) throw err;
    return write.immediate(m, true);
  }
};
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
    parentPort.postMessage({ id: m.id, results: writeAll(m) });
  } catch (err) {
    parentPort.postMessage({ id: m.id, code: String(err && err.code), message: String(err && err.message) });
  }
  catchUp(); // after the answer: the calls of this transaction do not wait for it
});
`;
