// Cost and margin of the calls sold, from the call log: per China day, operation and upstream (operations.yaml
// `upstreams:`; null for built-in plugins), the successful calls, what they earned (charged), what the upstream
// calls behind them cost (cost_per_call, kept on each row) and the difference. A canary's calls (call_log.canary)
// are not sales: they count neither as calls nor as revenue, but what their upstream calls cost is shown apart
// (canary_cost) and taken off the margin, since the operator pays for the probes too. Amounts are micro-TOKEN.
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
  /** Upstream cost of the canary's probes (never sold). */
  canary_cost: number;
  /** revenue - cost - canary_cost */
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
      sql<number>`sum(case when canary = 1 then 0 else 1 end)`.as('calls'),
      sql<number>`sum(case when canary = 1 then 0 else charged end)`.as('revenue'),
      sql<number>`sum(case when canary = 1 then 0 else upstream_cost end)`.as('cost'),
      sql<number>`sum(case when canary = 1 then upstream_cost else 0 end)`.as('canary_cost'),
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
      const canaryCost = Number(r.canary_cost ?? 0);
      return {
        day: dayLabel(Number(r.day)),
        operation: r.operation as string,
        upstream: r.upstream ?? null,
        calls: Number(r.calls),
        revenue,
        cost,
        canary_cost: canaryCost,
        margin: revenue - cost - canaryCost,
      };
    })
    .sort(
      (a, b) =>
        a.day.localeCompare(b.day) ||
        a.operation.localeCompare(b.operation) ||
        (a.upstream ?? '').localeCompare(b.upstream ?? ''),
    );
}
