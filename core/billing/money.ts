// The money of a billed call behind one seam, so the stages (pipeline/hold.ts, pipeline/settle.ts) never ask
// which database they run on: place a hold before the plugin runs, keep it by capturing it with the ledger and
// call-log rows after, or give it back. compose.ts picks the implementation for the store.
//  - SQLite: one process owns the database, so the hold is a reservation in memory (memory-holds.ts) and the
//    capture runs on the writer thread, or in the group commit when more must join it.
//  - PostgreSQL: processes share the database, so the hold is a row; holds, captures and give-backs of concurrent
//    calls are group-committed, one statement per batch (pg-money.ts).
import type { Kysely } from 'kysely';
import { after, type MaybePromise } from '../kernel/maybe-promise.js';
import { type CallLogRow, callLogParams, insertCallLogRows } from '../store/call-log-rows.js';
import type { Store } from '../store/database.js';
import type { Database } from '../store/schema.js';
import { type CaptureLogRow, captureHoldPg, type WithCharge } from './holds.js';
import { KnownBalances } from './known-balances.js';
import { balanceOf, DuplicateReferenceError, InsufficientBalanceError, staleEpochOf } from './ledger.js';
import { type MemoryHold, memoryHoldsOf } from './memory-holds.js';
import { type BatchCounts, PgMoneyBatch } from './pg-money.js';

/** A placed hold: its id (the call's request id, the ledger reference of its charge) and what backs it. */
export interface CallHold {
  readonly id: string;
  readonly userId: number;
  readonly memory?: MemoryHold;
}

export interface Money {
  /** Reserve `amount`; null when the available balance is lower (402). `expiresAt`: when a dead process's hold goes. */
  place(userId: number, amount: number, holdId: string, expiresAt: number): MaybePromise<CallHold | null>;
  /** Give the hold back; nothing is charged. */
  giveBack(hold: CallHold): MaybePromise<void>;
  /**
   * The charge: the hold becomes one debit and one ledger row, committed with `rows` (call-log rows, the call's
   * own last) and `withCharge` (an Idempotency-Key's stored answer). Returns the balance after, once committed.
   * Settles the hold either way: on failure nothing was charged and the hold is given back.
   */
  capture(hold: CallHold, operation: string, rows: CallLogRow[], withCharge?: WithCharge): Promise<number>;
  /**
   * Place and capture in one step, after the plugin ran, for a call whose plugin costs nothing to run: the balance
   * after, once committed. Throws InsufficientBalanceError when the available balance is lower (nothing written).
   */
  chargeAtOnce(userId: number, amount: number, id: string, operation: string, rows: CallLogRow[]): Promise<number>;
  /**
   * Placing a hold is a database round trip (PostgreSQL): a call whose plugin costs nothing to run is charged with
   * chargeAtOnce instead, one round trip and one commit fewer. In memory (SQLite) a hold costs nothing, so every
   * call keeps its hold before the plugin.
   */
  readonly holdIsRoundTrip: boolean;
  /** The committed balance for an answer's `remaining`, as this process last committed or read it if recent. */
  remaining(userId: number): MaybePromise<number>;
  /** PostgreSQL only: group-commit statements sent and the jobs they carried (bench, tests). */
  readonly batches?: BatchCounts;
}

export function createMoney(store: Store): Money {
  return store.dialect === 'sqlite' ? sqliteMoney(store) : pgMoney(store.db);
}

function sqliteMoney(store: Store): Money {
  const holds = memoryHoldsOf(store.db);
  const money: Money = {
    holdIsRoundTrip: false,
    place: (userId, amount, holdId) =>
      after(holds.place(userId, amount), (memory) => (memory ? { id: holdId, userId, memory } : null)),
    chargeAtOnce: async (userId, amount, id, operation, rows) => {
      const placed = await money.place(userId, amount, id, 0);
      if (!placed) throw new InsufficientBalanceError();
      return money.capture(placed, operation, rows);
    },
    giveBack: (hold) => {
      if (hold.memory) holds.giveBack(hold.memory);
    },
    remaining: (userId) => holds.balance(userId),
    capture(hold, operation, rows, withCharge) {
      const memory = hold.memory!;
      const thread = store.writerThread;
      // On the writer thread when it runs and nothing but rows joins the charge (an Idempotency-Key's stored
      // response is built from the balance inside the transaction: that stays on the gateway's connection).
      if (thread?.alive && !withCharge) return holds.captureOn(thread, memory, hold.id, operation, rows);
      return holds.capture(memory, hold.id, operation, async (trx, balanceAfter) => {
        await insertCallLogRows(trx, rows);
        if (withCharge) await withCharge(trx, balanceAfter);
      });
    },
  };
  return money;
}

function pgMoney(db: Kysely<Database>): Money {
  const batch = new PgMoneyBatch(db);
  const giveBack = async (hold: CallHold): Promise<void> => {
    await batch.run({ k: 'r', id: hold.id, u: hold.userId });
  };
  const charge = async (hold: CallHold, operation: string, rows: CallLogRow[], withCharge?: WithCharge) => {
    if (withCharge) {
      // The stored answer is built from the balance inside the transaction: a transaction of its own.
      const earlier = rows.slice(0, -1);
      return captureHoldPg(db, hold.id, operation, captureLogRow(rows[rows.length - 1]), withCharge, (trx) =>
        insertCallLogRows(trx, earlier),
      );
    }
    const r = await batch.run({ k: 'c', id: hold.id, u: hold.userId, op: operation, rows: rows.map(callLogParams) });
    if (typeof r === 'number') return r;
    if (r === 'duplicate') throw new DuplicateReferenceError(hold.id);
    throw new Error(`hold ${hold.id} is gone (expired and swept?)`);
  };
  const known = new KnownBalances();
  const remaining = (userId: number): MaybePromise<number> => {
    const at = Date.now();
    const balance = known.get(userId, at);
    if (balance !== undefined) return balance;
    const epoch = staleEpochOf(userId);
    return balanceOf(db, userId).then((read) => {
      known.set(userId, read.balance, at, epoch);
      return read.balance;
    });
  };
  const chargeAtOnce = async (userId: number, amount: number, id: string, operation: string, rows: CallLogRow[]) => {
    const charged = await batch.run({ k: 's', id, u: userId, a: amount, op: operation, rows: rows.map(callLogParams) });
    if (typeof charged === 'number') return charged;
    if (charged === false) throw new InsufficientBalanceError();
    if (charged === 'duplicate') throw new DuplicateReferenceError(id);
    throw new Error(`tollgate_money: unexpected answer ${JSON.stringify(charged)} to a charge`);
  };
  return {
    batches: batch.counts,
    holdIsRoundTrip: true,
    chargeAtOnce: async (userId, amount, id, operation, rows) => {
      const epoch = staleEpochOf(userId);
      const balanceAfter = await chargeAtOnce(userId, amount, id, operation, rows);
      known.set(userId, balanceAfter, Date.now(), epoch);
      return balanceAfter;
    },
    place: async (userId, amount, holdId, expiresAt) =>
      (await batch.run({ k: 'h', id: holdId, u: userId, a: amount, e: expiresAt })) === true
        ? { id: holdId, userId }
        : null,
    giveBack,
    remaining,
    async capture(hold, operation, rows, withCharge) {
      const epoch = staleEpochOf(hold.userId);
      try {
        const balanceAfter = await charge(hold, operation, rows, withCharge);
        known.set(hold.userId, balanceAfter, Date.now(), epoch);
        return balanceAfter;
      } catch (err) {
        // Nothing was charged; the hold goes back now (if the database is down, its expiry gives it back).
        await giveBack(hold).catch(() => undefined);
        throw err;
      }
    },
  };
}

/** The call's own row as the single-statement PostgreSQL capture writes it (charged = the hold's amount). */
function captureLogRow(r: CallLogRow): CaptureLogRow {
  return {
    requestId: r.request_id,
    userId: r.user_id ?? null,
    keyId: r.key_id ?? null,
    operation: r.operation ?? null,
    cached: r.cached ?? 0,
    durationMs: r.duration_ms,
    pluginMs: r.plugin_ms ?? null,
    ip: r.ip ?? null,
    createdAt: r.created_at,
    upstream: r.upstream ?? null,
    upstreamCost: r.upstream_cost ?? 0,
  };
}
