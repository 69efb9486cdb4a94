// The append-only ledger. Every balance change is one row carrying the balance after it and a unique
// reference, written in the same transaction as the balance update: balance == sum(ledger) always holds.
import type { Kysely, Transaction } from 'kysely';
import { asMicro } from '../kernel/money.js';
import { inTransaction } from '../store/group-commit.js';
import type { Database, LedgerKind } from '../store/schema.js';
import { runBilling } from './billing-sql.js';

export class InsufficientBalanceError extends Error {
  constructor() {
    super('insufficient available balance');
  }
}

export class DuplicateReferenceError extends Error {
  constructor(readonly ref: string) {
    super(`ledger reference ${ref} was already used`);
  }
}

export interface LedgerEntry {
  userId: number;
  /** micro-TOKEN; negative debits */
  amount: number;
  kind: LedgerKind;
  ref: string;
  operation?: string | null;
  note?: string | null;
}

type Db = Kysely<Database> | Transaction<Database>;

/**
 * A counter per user bumped by every balance change posted here (top-ups, grants, refunds, admin changes), so
 * balances remembered in memory (SQLite holds, memory-holds.ts) are read again. Bumped before the change commits:
 * the re-read waits for the connection, so it sees the committed result. Per process, keyed by user id only:
 * another database with the same ids just reads again (harmless).
 */
const changes = new Map<number, number>();
export const staleEpochOf = (userId: number): number => changes.get(userId) ?? 0;

/**
 * Apply one entry inside an existing transaction. A debit never takes money reserved by holds
 * (balance + amount >= held), so it cannot push the balance below zero either.
 */
export async function applyEntry(trx: Db, e: LedgerEntry, now = Date.now()): Promise<number> {
  if (!Number.isSafeInteger(e.amount)) throw new RangeError(`ledger amount must be an integer, got ${e.amount}`);
  changes.set(e.userId, staleEpochOf(e.userId) + 1);
  const updated = await runBilling<{ balance: unknown }>(trx, 'changeBalance', [e.amount, e.userId, e.amount]);
  if (updated.rows.length === 0) throw new InsufficientBalanceError();
  const balanceAfter = asMicro(updated.rows[0].balance);
  await insertLedgerRow(trx, e, balanceAfter, now);
  return balanceAfter;
}

/** The ledger row of a balance change already applied in `trx`; a reused reference rolls the change back. */
export async function insertLedgerRow(trx: Db, e: LedgerEntry, balanceAfter: number, now = Date.now()): Promise<void> {
  const inserted = await runBilling(trx, 'insertLedger', [
    e.userId,
    e.amount,
    balanceAfter,
    e.kind,
    e.ref,
    e.operation ?? null,
    e.note ?? null,
    now,
  ]);
  if (inserted.rows.length === 0) throw new DuplicateReferenceError(e.ref);
}

/** One entry in its own transaction, with any writes that must commit with it. Returns the balance after it. */
export async function postEntry(
  db: Kysely<Database>,
  e: LedgerEntry,
  withEntry?: (trx: Transaction<Database>, balanceAfter: number) => Promise<void>,
): Promise<number> {
  return inTransaction(db, async (trx) => {
    const balanceAfter = await applyEntry(trx, e);
    if (withEntry) await withEntry(trx, balanceAfter);
    return balanceAfter;
  });
}

export async function balanceOf(db: Kysely<Database>, userId: number): Promise<{ balance: number; held: number }> {
  const row = await db.selectFrom('users').select(['balance', 'held']).where('id', '=', userId).executeTakeFirst();
  return row ? { balance: asMicro(row.balance), held: asMicro(row.held) } : { balance: 0, held: 0 };
}
