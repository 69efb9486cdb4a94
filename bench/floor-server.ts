// The bench's floor row: the least a billed GET /api/phone can cost on this machine, for scale beside the gateway's
// billed row. It does what every billed call must do and nothing else: the key's hash looked up in memory, the price
// reserved against the balance in memory, the phone lookups of one event-loop turn in one synchronous call into an
// isolate (the plugin's own lookup code and tables), and their charges (balance, ledger row, call-log row: the
// gateway's statements on the gateway's schema) in one transaction on this thread, each caller answered after its
// COMMIT, with the gateway's envelope and headers. No input validation, rate or concurrency limits, cache, plans,
// spending caps, idempotency, reservations bookkeeping, metrics or logs: the distance from this row to the billed
// row is what those cost, and this row is as far as any design of the billed call could go here.
//   DB=<migrated SQLite file> PORT=<port> [WITHOUT_USER_INDEXES=1] node --no-node-snapshot --import ./core/bin/load-ts.mjs bench/floor-server.ts
import { createServer } from 'node:http';
import Database from 'better-sqlite3';
import { newRequestId, sha256Hex } from '../core/accounts/secrets.js';
import { sqliteText } from '../core/billing/billing-sql.js';
import { createProcessLogger } from '../core/kernel/logger.js';
import { toToken } from '../core/kernel/money.js';
import { INSERT_CALL_LOG } from '../core/store/call-log-rows.js';
import { newCheckpointSignal, startCheckpointer } from '../core/store/checkpointer.js';
import { answer, type Call, failure } from './floor-answer.js';
import { phoneLookupMany } from './phone-lookup.js';

const PRICE = 5000; // micro-TOKEN: phone's price in operations.yaml

const db = new Database(process.env.DB!, { fileMustExist: true });
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
// The bench's second floor row: what a charge costs when its rows touch no per-user page at commit.
if (process.env.WITHOUT_USER_INDEXES)
  db.exec('drop index if exists ledger_user_time; drop index if exists call_log_user_time');
// Checkpoints off this thread, as the gateway's (core/store/checkpointer.ts): inside a commit here they cost this
// row a fifth of its throughput. This thread copies what a pass left, between two transactions, so the log restarts.
const signal = newCheckpointSignal();
startCheckpointer(db, process.env.DB!, createProcessLogger('warn', 'json'), undefined, signal);
let caughtUpTo = 0;
function catchUp(): void {
  if (Atomics.load(signal, 0) === caughtUpTo) return;
  caughtUpTo = Atomics.load(signal, 0);
  db.pragma('wal_checkpoint(PASSIVE)');
}
const spend = db.prepare(sqliteText('spend'));
const insertLedger = db.prepare(sqliteText('insertLedger'));
const insertLog = db.prepare(INSERT_CALL_LOG);
const savepoint = db.prepare('savepoint call');
const release = db.prepare('release savepoint call');
const rollback = db.prepare('rollback to savepoint call');

const keys = new Map<string, { keyId: number; userId: number }>();
for (const k of db.prepare('select id, user_id, key_hash from api_keys').all() as Array<Record<string, number>>)
  keys.set(String(k.key_hash), { keyId: k.id, userId: k.user_id });
/** balance - held, less what calls in flight reserved. */
const available = new Map<number, number>();
for (const u of db.prepare('select id, balance - held as available from users').all() as Array<Record<string, number>>)
  available.set(u.id, u.available);

const { lookupMany } = await phoneLookupMany();

/** One charge in its own savepoint: the balance after it, or null (not enough money, or the reference was used). */
function charge(call: Call, now: number): number | null {
  savepoint.run();
  const row = spend.get(PRICE, call.userId, PRICE) as { balance: number } | undefined;
  if (row && insertLedger.get(call.userId, -PRICE, row.balance, 'charge', call.requestId, 'phone', null, now)) {
    const ms = Number(process.hrtime.bigint() - call.startedNs) / 1e6;
    insertLog.run([
      call.requestId,
      call.userId,
      call.keyId,
      'phone',
      200,
      null,
      PRICE,
      0,
      null,
      ms,
      null,
      call.ip,
      now,
      0,
      null,
      null,
      0,
    ]);
    release.run();
    return row.balance;
  }
  rollback.run();
  release.run();
  return null;
}

const chargeAll = db.transaction((calls: Call[], now: number) => calls.map((c) => charge(c, now)));

let turn: Call[] = [];

/** The calls of this turn: their lookups in one isolate call, their charges in one transaction, then the answers. */
function endTurn(): void {
  const calls = turn;
  turn = [];
  const outcomes = lookupMany.applySync(undefined, [calls.map((c) => c.phone)], {
    arguments: { copy: true },
    result: { copy: true },
  });
  const charged: Call[] = [];
  const data: string[] = [];
  calls.forEach((call, i) => {
    const outcome = outcomes[i];
    if (outcome.ok) {
      charged.push(call);
      data.push(JSON.stringify(outcome.data));
    } else {
      available.set(call.userId, (available.get(call.userId) ?? 0) + PRICE);
      answer(call, 400, failure(call, 'INVALID_INPUT'));
    }
  });
  const balances = chargeAll.immediate(charged, Date.now());
  catchUp();
  charged.forEach((call, i) => {
    const balance = balances[i];
    available.set(call.userId, (available.get(call.userId) ?? 0) + (balance === null ? PRICE : 0));
    if (balance === null) answer(call, 402, failure(call, 'INSUFFICIENT_BALANCE'));
    else
      answer(
        call,
        200,
        `{"success":true,"data":${data[i]},"deducted":${toToken(PRICE)},"remaining":${toToken(balance)},"cached":false,"request_id":"${call.requestId}"}`,
      );
  });
}

const server = createServer((req, res) => {
  const startedNs = process.hrtime.bigint();
  const requestId = newRequestId();
  const key = req.headers['x-api-key'];
  const found = typeof key === 'string' ? keys.get(sha256Hex(key)) : undefined;
  const call = { res, requestId, startedNs, phone: '', userId: 0, keyId: 0, ip: req.socket.remoteAddress ?? '' };
  if (!found) return answer(call, 401, failure(call, 'INVALID_API_KEY'));
  const phone = new URLSearchParams((req.url ?? '').split('?')[1] ?? '').get('phone') ?? '';
  const left = available.get(found.userId) ?? 0;
  if (left < PRICE) return answer(call, 402, failure(call, 'INSUFFICIENT_BALANCE'));
  available.set(found.userId, left - PRICE);
  turn.push({ ...call, phone, userId: found.userId, keyId: found.keyId });
  if (turn.length === 1) setImmediate(endTurn);
});
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('listening\n'));
