// Cost and margin of the calls sold, from the call log: per China day, operation and upstream (operations.yaml
// `upstreams:`; null for built-in plugins), the successful calls, what they earned (charged), what the upstream
// calls behind them cost (cost_per_call, kept on each row) and the difference. Amounts are micro-TOKEN.
import { type Kysely, sql } from 'kysely';
import type { Database } from '../store/schema.js';
import { dayLabel } from './usage.js';

const DAY_MS = 24 * 3600 * 1000;
const CHINA_OFFSET_MS = 8 * 3600 * 1000;

export interface MarginRow {
  day: string;
  operation: string;
  upstream: string | null;
  calls: number;
  revenue: number;
  cost: number;
  margin: number;
}

export async function marginByDay(db: Kysely<Database>, since: number): Promise<MarginRow[]> {
  const day = sql<number>`(created_at + ${sql.lit(CHINA_OFFSET_MS)}) / ${sql.lit(DAY_MS)}`;
  const rows = await db
    .selectFrom('call_log')
    .select([
      day.as('day'),
      'operation',
      'upstream',
      (eb) => eb.fn.countAll<number>().as('calls'),
      sql<number>`sum(charged)`.as('revenue'),
      sql<number>`sum(upstream_cost)`.as('cost'),
    ])
    .where('created_at', '>=', since)
    .where('status', '=', 200)
    .where('operation', 'is not', null)
    .groupBy([day, 'operation', 'upstream'])
    .execute();
  return rows
    .map((r) => {
      const revenue = Number(r.revenue ?? 0);
      const cost = Number(r.cost ?? 0);
      return {
        day: dayLabel(Number(r.day)),
        operation: r.operation as string,
        upstream: r.upstream ?? null,
        calls: Number(r.calls),
        revenue,
        cost,
        margin: revenue - cost,
      };
    })
    .sort(
      (a, b) =>
        a.day.localeCompare(b.day) ||
        a.operation.localeCompare(b.operation) ||
        (a.upstream ?? '').localeCompare(b.upstream ?? ''),
    );
}
