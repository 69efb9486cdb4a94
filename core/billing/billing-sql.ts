// The billing hot path as fixed SQL, one text per statement, run through Kysely's connection (so its
// transactions and connection lock still apply) without building and compiling a query tree per call:
// measured 2.3x faster for a hold + capture pair on SQLite. The statements are plain SQL that SQLite and
// PostgreSQL both accept; only the placeholder style differs (? against $n).
import { CompiledQuery, type Kysely, PostgresAdapter, type QueryResult, type Transaction } from 'kysely';
import { directSqlite, runDirect } from '../store/direct-sqlite.js';
import { PREPARED } from '../store/pg-prepared.js';
import type { Database } from '../store/schema.js';

const STATEMENTS = {
  takeHold: 'delete from holds where id = ? returning user_id, amount',
  unreserve: 'update users set held = held - ? where id = ?',
  /** Capture: the amount leaves `held` and `balance` together, so balance - held (available) is unchanged. */
  spendHeld: 'update users set held = held - ?, balance = balance - ? where id = ? returning balance',
  /** SQLite in-memory holds (memory-holds.ts): the charge itself, never below what row holds still reserve. */
  spend: 'update users set balance = balance - ? where id = ? and balance - ? >= held returning balance, held',
  readBalance: 'select balance, held from users where id = ?',
  /** Any other balance change; a debit never takes money reserved by holds, so balance stays >= held >= 0. */
  changeBalance: 'update users set balance = balance + ? where id = ? and balance + ? >= held returning balance',
  insertLedger:
    'insert into ledger (user_id, amount, balance_after, kind, ref, operation, note, created_at) ' +
    'values (?, ?, ?, ?, ?, ?, ?, ?) on conflict (ref) do nothing returning id',
  /** The idempotent response, stored with the charge; only the call still owning the claim may complete it. */
  completeClaim:
    "update idempotency set state = 'done', status = ?, response = ?, expires_at = ?, owner = null " +
    "where user_id = ? and idem_key = ? and owner = ? and state = 'pending'",
} as const;

export type BillingStatement = keyof typeof STATEMENTS;
type Texts = Record<BillingStatement, string>;

function numbered(text: string): string {
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
}

const byExecutor = new WeakMap<object, Texts>();

function textsFor(db: Kysely<Database> | Transaction<Database>): Texts {
  const executor = db.getExecutor();
  let texts = byExecutor.get(executor.adapter);
  if (!texts) {
    const pg = executor.adapter instanceof PostgresAdapter;
    // On PostgreSQL each is a named prepared statement (PREPARED, store/pg-prepared.ts).
    texts = Object.fromEntries(
      Object.entries(STATEMENTS).map(([k, v]) => [k, pg ? PREPARED + numbered(v) : v]),
    ) as Texts;
    byExecutor.set(executor.adapter, texts);
  }
  return texts;
}

/** A statement's SQLite text, for a script the writer thread runs (store/writer-thread.ts). */
export function sqliteText(statement: BillingStatement): string {
  return STATEMENTS[statement];
}

export function runBilling<Row>(
  db: Kysely<Database> | Transaction<Database>,
  statement: BillingStatement,
  params: ReadonlyArray<string | number | null>,
): Promise<QueryResult<Row>> {
  // Inside an SQLite transaction (the group commit): straight on the connection it holds (direct-sqlite.ts).
  const direct = directSqlite(db);
  if (direct) {
    try {
      return Promise.resolve(runDirect<Row>(direct, STATEMENTS[statement], params));
    } catch (err) {
      return Promise.reject(err);
    }
  }
  return db.executeQuery<Row>(CompiledQuery.raw(textsFor(db)[statement], [...params]));
}
