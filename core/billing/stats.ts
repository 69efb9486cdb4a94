// Admin statistics from call_log: calls, successes and revenue (what calls were charged) per China day, and
// the top operations of each day by calls. Revenue is micro-TOKEN; the console converts at the edge.
import type { Kysely } from 'kysely';
import { CANARY_EMAIL } from '../accounts/system-users.js';
import type { Database } from '../store/schema.js';
import { callsByDayAndOperation } from './usage.js';

export interface DayStats {
  day: string;
  calls: number;
  successes: number;
  revenue: number;
  top_operations: Array<{ operation: string | null; calls: number; revenue: number }>;
}

export interface Stats {
  users: number;
  days: DayStats[];
  totals: { calls: number; successes: number; revenue: number };
}

export async function adminStats(db: Kysely<Database>, since: number, topN = 5): Promise<Stats> {
  const rows = await callsByDayAndOperation(db, since);
  const byDay = new Map<string, DayStats>();
  for (const r of rows) {
    const day = r.day;
    let d = byDay.get(day);
    if (!d) byDay.set(day, (d = { day, calls: 0, successes: 0, revenue: 0, top_operations: [] }));
    const { calls, charged: revenue } = r;
    d.calls += calls;
    d.successes += r.successes;
    d.revenue += revenue;
    d.top_operations.push({ operation: r.operation, calls, revenue });
  }
  const days = [...byDay.values()].sort((a, b) => a.day.localeCompare(b.day));
  for (const d of days) {
    d.top_operations.sort(
      (a, b) => b.calls - a.calls || b.revenue - a.revenue || String(a.operation).localeCompare(String(b.operation)),
    );
    d.top_operations = d.top_operations.slice(0, topN);
  }
  const users = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('email', '!=', CANARY_EMAIL)
    .executeTakeFirstOrThrow();
  return {
    users: Number(users.n),
    days,
    totals: days.reduce(
      (t, d) => ({ calls: t.calls + d.calls, successes: t.successes + d.successes, revenue: t.revenue + d.revenue }),
      { calls: 0, successes: 0, revenue: 0 },
    ),
  };
}
