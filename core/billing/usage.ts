// A user's usage and call log, read from call_log: per China day and per operation, and the raw log with
// filters and id-cursor pagination. Money stays micro-TOKEN here; the console converts at the edge.
import { type Kysely, type Selectable, sql } from 'kysely';
import { asMicro } from '../kernel/money.js';
import type { CallLogTable, Database } from '../store/schema.js';
import { refusedByDayAndOperation } from './refused-counts.js';

const DAY_MS = 24 * 3600 * 1000;
const CHINA_OFFSET_MS = 8 * 3600 * 1000;

/**
 * SQL day number in China time. Integer division works alike in SQLite and PostgreSQL for bigint, but only with
 * literal integers: better-sqlite3 binds JS numbers as REAL, which would make every row its own "day".
 */
export const chinaDayNumber = sql<number>`(call_log.created_at + ${sql.lit(CHINA_OFFSET_MS)}) / ${sql.lit(DAY_MS)}`;

export function dayLabel(dayNumber: number): string {
  return new Date(Number(dayNumber) * DAY_MS).toISOString().slice(0, 10);
}

export interface UsageRow {
  day: string;
  operation: string | null;
  calls: number;
  successes: number;
  /** micro-TOKEN */
  charged: number;
}

/** Calls per China day and operation since `since`: one user's (console usage) or everyone's (admin stats). */
export async function callsByDayAndOperation(
  db: Kysely<Database>,
  since: number,
  userId?: number,
  keyId?: number,
): Promise<UsageRow[]> {
  let q = db
    .selectFrom('call_log')
    .select([
      chinaDayNumber.as('day'),
      'operation',
      (eb) => eb.fn.countAll<number>().as('calls'),
      sql<number>`sum(case when error_code is null then 1 else 0 end)`.as('successes'),
      (eb) => eb.fn.sum<number>('charged').as('charged'),
    ])
    .where('created_at', '>=', since);
  if (userId !== undefined) q = q.where('user_id', '=', userId);
  // Everyone's: the canaries' probes are the operator's, not traffic (migration 013).
  else q = q.where('canary', '=', 0);
  // One key's share (a rotated key keeps its id, so its history stays whole).
  if (keyId !== undefined) q = q.where('key_id', '=', keyId);
  const rows = await q.groupBy([chinaDayNumber, 'operation']).orderBy('day').orderBy('operation').execute();
  const out = rows.map((r) => ({
    day: dayLabel(r.day),
    operation: r.operation,
    calls: Number(r.calls),
    successes: Number(r.successes),
    charged: asMicro(r.charged ?? 0),
  }));
  // Refusals counted per minute instead of logged (core/store/refused-log.ts) are calls too: failed, uncharged.
  const refused = await refusedByDayAndOperation(db, since, userId, keyId);
  if (refused.length === 0) return out;
  const byId = new Map(out.map((r) => [`${r.day}|${r.operation}`, r]));
  for (const f of refused) {
    const day = dayLabel(f.dayNumber);
    const row = byId.get(`${day}|${f.operation}`);
    if (row) row.calls += f.calls;
    else {
      const added = { day, operation: f.operation, calls: f.calls, successes: 0, charged: 0 };
      byId.set(`${day}|${f.operation}`, added);
      out.push(added);
    }
  }
  // By day, then operation, calls refused before their operation was known first.
  return out.sort((a, b) => a.day.localeCompare(b.day) || nullsFirst(a.operation, b.operation));
}

const nullsFirst = (a: string | null, b: string | null): number =>
  a === b ? 0 : a === null ? -1 : b === null ? 1 : a < b ? -1 : 1;

export function usageByDayAndOperation(
  db: Kysely<Database>,
  userId: number,
  since: number,
  keyId?: number,
): Promise<UsageRow[]> {
  return callsByDayAndOperation(db, since, userId, keyId);
}

export interface CallFilter {
  userId: number;
  code?: string;
  keyId?: number;
  /** 'success' | 'error' | an HTTP status */
  status?: 'success' | 'error' | number;
  from?: number;
  to?: number;
  /** Rows after this one, newest first (the previous page's next_before: the id of its last row). */
  before?: number;
  limit: number;
}

export type CallRow = Selectable<CallLogTable>;

export async function listCalls(db: Kysely<Database>, f: CallFilter): Promise<CallRow[]> {
  let q = db.selectFrom('call_log').selectAll().where('user_id', '=', f.userId);
  if (f.code !== undefined) q = q.where('operation', '=', f.code);
  if (f.keyId !== undefined) q = q.where('key_id', '=', f.keyId);
  if (f.status === 'success') q = q.where('error_code', 'is', null);
  else if (f.status === 'error') q = q.where('error_code', 'is not', null);
  else if (f.status !== undefined) q = q.where('status', '=', f.status);
  if (f.from !== undefined) q = q.where('created_at', '>=', f.from);
  if (f.to !== undefined) q = q.where('created_at', '<', f.to);
  if (f.before !== undefined) {
    const { before } = f;
    const cursor = await db.selectFrom('call_log').select('created_at').where('id', '=', before).executeTakeFirst();
    // The rows after the cursor row in (created_at, id) order; if that row is gone (retention deletes the oldest),
    // the rows below its id are as old or older.
    q = cursor
      ? q.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(Number(cursor.created_at), before)))
      : q.where('id', '<', before);
  }
  // Newest first by (created_at, id): the order of call_log_user_time (user_id, created_at; SQLite appends the
  // rowid, PostgreSQL sorts the few equal times), so a page reads `limit` index entries, not the user's history.
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(f.limit).execute();
}

export async function listLedger(db: Kysely<Database>, userId: number, limit: number, before?: number) {
  let q = db.selectFrom('ledger').selectAll().where('user_id', '=', userId);
  if (before !== undefined) q = q.where('id', '<', before);
  return q.orderBy('id', 'desc').limit(limit).execute();
}
