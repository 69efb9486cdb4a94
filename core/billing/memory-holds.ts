// SQLite: one process owns the database, so a call's reservation need not be a row and a transaction. Holds are
// kept in memory against the user's available balance (balance - held in the database), read once per user and
// then carried forward by every capture's committed result. What stays in the database, in the group commit, is
// the capture: balance debited, ledger row, call-log row, in one transaction that answers nobody before COMMIT.
//
// Why it stays exact:
// - place() checks and reserves in one synchronous step after the balance is known, so concurrent calls in this
//   process can never reserve the same money twice;
// - a capture's UPDATE still refuses to take the balance below `held` (ledger.ts guard), so a balance that moved
//   behind our back (another process, a refund) can only fail the capture (uncharged), never overdraw;
// - a credit or debit posted through ledger.ts marks the user stale, so the next hold reads the balance again;
//   a hold refused on the remembered balance reads it again once before answering 402 (a top-up made by the CLI
//   in another process is seen at once);
// - kill -9 loses only these in-memory reservations: no money had moved, reconcile holds.
// PostgreSQL keeps row holds (several processes share it; core/billing/holds.ts).
import type { Kysely, Transaction } from 'kysely';
import type { MaybePromise } from '../kernel/maybe-promise.js';
import { asMicro } from '../kernel/money.js';
import { type CallLogRow, callLogParams, INSERT_CALL_LOG } from '../store/call-log-rows.js';
import { inTransaction } from '../store/group-commit.js';
import type { Database } from '../store/schema.js';
import type { Script, ScriptStep, WriterThread } from '../store/writer-thread.js';
import { runBilling, sqliteText } from './billing-sql.js';
import { DuplicateReferenceError, InsufficientBalanceError, insertLedgerRow, staleEpochOf } from './ledger.js';

interface Account {
  /** The balance as last committed in the database. */
  balance: number;
  /** `held` in the database: only ever left over from row holds of an earlier version; counted as taken. */
  dbHeld: number;
  /** Reserved in memory by calls of this process that have not settled. */
  reserved: number;
  /** ledger.ts's change counter for this user when `balance` was read. */
  epoch: number;
  /** Bumped by every capture that set `balance`, so a read that raced it is not applied over it. */
  gen: number;
  /** When `balance` was last read or set by a commit (Date.now()). */
  seenAt: number;
}

/** How long a remembered balance may stand in for a read in an answer's `remaining` (another process may change it). */
const KNOWN_FOR_MS = 1000;

/** One reservation, settled exactly once by capture() (kept) or giveBack(). */
export interface MemoryHold {
  readonly userId: number;
  readonly amount: number;
}

export type WithCharge = (trx: Transaction<Database>, balanceAfter: number) => Promise<void>;

export class MemoryHolds {
  private readonly accounts = new Map<number, Account>();
  private readonly loading = new Map<number, Promise<Account>>();

  constructor(private readonly db: Kysely<Database>) {}

  /** Reserve `amount` against the user's available balance, or null (402) when it is not there. */
  place(userId: number, amount: number): MaybePromise<MemoryHold | null> {
    const a = this.accounts.get(userId);
    // Known, fresh and enough: at once, without a promise.
    if (a && a.epoch === staleEpochOf(userId) && a.balance - a.dbHeld - a.reserved >= amount) {
      a.reserved += amount;
      return { userId, amount };
    }
    return this.placeAfterReading(userId, amount);
  }

  private async placeAfterReading(userId: number, amount: number): Promise<MemoryHold | null> {
    let a = this.accounts.get(userId);
    if (!a || a.epoch !== staleEpochOf(userId)) a = await this.load(userId);
    if (a.balance - a.dbHeld - a.reserved < amount) {
      // Perhaps credited by someone who cannot tell this process (the CLI): look once more before refusing.
      a = await this.load(userId);
      if (a.balance - a.dbHeld - a.reserved < amount) return null;
    }
    a.reserved += amount;
    return { userId, amount };
  }

  /** Give the reservation back: nothing was written, nothing is. */
  giveBack(h: MemoryHold): void {
    const a = this.accounts.get(h.userId);
    if (a) a.reserved -= h.amount;
  }

  /**
   * The charge: balance debited, one ledger row (ref), and the writes of `withCharge`, in the group commit.
   * Returns the balance after it, once committed. On failure nothing was written and the hold is given back.
   */
  capture(h: MemoryHold, ref: string, operation: string, withCharge?: WithCharge): Promise<number> {
    return this.settle(h, () =>
      inTransaction(this.db, async (trx) => {
        const res = await runBilling<{ balance: unknown; held: unknown }>(trx, 'spend', [h.amount, h.userId, h.amount]);
        const row = res.rows[0];
        if (!row) throw new InsufficientBalanceError();
        const balance = asMicro(row.balance);
        await insertLedgerRow(trx, { userId: h.userId, amount: -h.amount, kind: 'charge', ref, operation }, balance);
        if (withCharge) await withCharge(trx, balance);
        return { balance, held: asMicro(row.held) };
      }),
    );
  }

  /**
   * The same charge with call-log rows as plain data, written by the writer thread (store/writer-thread.ts) in its
   * transaction of this turn, so the event loop does not run it: the same statements, guards and savepoint.
   */
  captureOn(thread: WriterThread, h: MemoryHold, ref: string, operation: string, rows: CallLogRow[]): Promise<number> {
    const now = Date.now();
    const balance = { step: 0, column: 'balance' };
    const script: Script = {
      steps: [
        { sql: sqliteText('spend'), params: [h.amount, h.userId, h.amount], refuse: 'insufficient' },
        {
          sql: sqliteText('insertLedger'),
          params: [h.userId, -h.amount, balance, 'charge', ref, operation, null, now],
          refuse: 'duplicate',
        },
        ...rows.map((r) => ({ sql: INSERT_CALL_LOG, params: callLogParams(r) as ScriptStep['params'] })),
      ],
      committed: {
        sql: 'select l.balance_after as balance, u.held as held from ledger l join users u on u.id = l.user_id where l.ref = ?',
        params: [ref],
      },
    };
    return this.settle(h, async () => {
      const r = await thread.run(script);
      if ('row' in r) return { balance: asMicro(r.row.balance), held: asMicro(r.row.held) };
      if ('refused' in r)
        throw r.refused === 'insufficient' ? new InsufficientBalanceError() : new DuplicateReferenceError(ref);
      throw Object.assign(new Error(r.failed.message), { code: r.failed.code });
    });
  }

  /** Runs a capture; committed, the reservation becomes the debit; failed, it is given back. */
  private async settle(h: MemoryHold, commit: () => Promise<{ balance: number; held: number }>): Promise<number> {
    const a = this.accounts.get(h.userId);
    try {
      const after = await commit();
      if (a) {
        // Committed: the reservation becomes the debit in one synchronous step (available drops as reserved does).
        a.balance = after.balance;
        a.dbHeld = after.held;
        a.reserved -= h.amount;
        a.gen++;
        a.seenAt = Date.now();
      }
      return after.balance;
    } catch (err) {
      if (a) {
        a.reserved -= h.amount;
        // The database disagreed with what we remembered: read it again next time.
        if (err instanceof InsufficientBalanceError) a.epoch = -1;
      }
      throw err;
    }
  }

  /** The committed balance (for `remaining` in an answer): as this process last committed or read it, if recent
   *  (then at once, without a promise). */
  balance(userId: number): MaybePromise<number> {
    const a = this.accounts.get(userId);
    if (a && a.epoch === staleEpochOf(userId) && Date.now() - a.seenAt < KNOWN_FOR_MS) return a.balance;
    return this.load(userId).then((loaded) => loaded.balance);
  }

  /** One read per user at a time; concurrent holds of a user wait for the same read. */
  private load(userId: number): Promise<Account> {
    let p = this.loading.get(userId);
    if (!p) {
      p = this.read(userId).finally(() => this.loading.delete(userId));
      this.loading.set(userId, p);
    }
    return p;
  }

  private async read(userId: number): Promise<Account> {
    const before = this.accounts.get(userId);
    const gen = before?.gen ?? 0;
    const epoch = staleEpochOf(userId);
    const res = await runBilling<{ balance: unknown; held: unknown }>(this.db, 'readBalance', [userId]);
    const row = res.rows[0];
    const balance = row ? asMicro(row.balance) : 0;
    const dbHeld = row ? asMicro(row.held) : 0;
    const a = this.accounts.get(userId) ?? { balance, dbHeld, reserved: 0, epoch, gen: 0, seenAt: 0 };
    // A capture that committed while we read carries a value at least as new: keep it.
    if (a.gen === gen) {
      a.balance = balance;
      a.dbHeld = dbHeld;
      a.seenAt = Date.now();
    }
    a.epoch = epoch;
    this.accounts.set(userId, a);
    return a;
  }
}

const byDb = new WeakMap<Kysely<Database>, MemoryHolds>();

/** The holds of this database handle (SQLite only: the caller checks the dialect). */
export function memoryHoldsOf(db: Kysely<Database>): MemoryHolds {
  let holds = byDb.get(db);
  if (!holds) byDb.set(db, (holds = new MemoryHolds(db)));
  return holds;
}
