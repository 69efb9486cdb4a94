// Per-operation health from the call log over a window: calls, successes (no error code) and latency
// percentiles of the whole call (duration_ms). Percentiles are nearest-rank, read with ORDER BY ... OFFSET so
// SQLite and PostgreSQL answer the same without loading every duration into memory.
import { type Kysely, sql } from 'kysely';
import type { Database } from '../store/schema.js';
import { refusedByOperation } from './refused-counts.js';

export interface OperationHealth {
  operation: string;
  calls: number;
  successes: number;
  p50_ms: number;
  p95_ms: number;
  p99_ms: number;
}

/** The nearest-rank position (0-based) of percentile p among n sorted values. */
export function rankOf(p: number, n: number): number {
  return Math.max(0, Math.ceil((p / 100) * n) - 1);
}

export async function operationHealth(db: Kysely<Database>, since: number): Promise<OperationHealth[]> {
  const groups = await db
    .selectFrom('call_log')
    .select([
      'operation',
      (eb) => eb.fn.countAll<number>().as('calls'),
      sql<number>`sum(case when error_code is null then 1 else 0 end)`.as('successes'),
    ])
    .where('created_at', '>=', since)
    .where('operation', 'is not', null)
    .where('canary', '=', 0)
    .groupBy('operation')
    .orderBy('operation')
    .execute();
  // Calls refused by a limit have no row of their own (core/store/refused-log.ts): they add to calls and errors,
  // not to the latencies, which are those of the logged calls.
  const refused = await refusedByOperation(db, since);
  const out: OperationHealth[] = [];
  for (const g of groups) {
    const operation = g.operation as string;
    const calls = Number(g.calls);
    const refusedCalls = refused.get(operation) ?? 0;
    refused.delete(operation);
    const at = async (p: number): Promise<number> => {
      const row = await db
        .selectFrom('call_log')
        .select('duration_ms')
        .where('operation', '=', operation)
        .where('created_at', '>=', since)
        .where('canary', '=', 0)
        .orderBy('duration_ms')
        .limit(1)
        .offset(rankOf(p, calls))
        .executeTakeFirst();
      return Number(row?.duration_ms ?? 0);
    };
    out.push({
      operation,
      calls: calls + refusedCalls,
      successes: Number(g.successes),
      p50_ms: await at(50),
      p95_ms: await at(95),
      p99_ms: await at(99),
    });
  }
  for (const [operation, calls] of refused)
    out.push({ operation, calls, successes: 0, p50_ms: 0, p95_ms: 0, p99_ms: 0 });
  return out.sort((a, b) => (a.operation < b.operation ? -1 : a.operation > b.operation ? 1 : 0));
}
