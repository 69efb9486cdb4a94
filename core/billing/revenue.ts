// Revenue from what was sold, not from ledger top-ups: orders credited (paid, or paid and later refunded) per
// China day, split into plans and packages, with the money taken per currency and the refunds sent back.
// TOKEN values are micro-TOKEN and money is in minor units (fen, cents); the console converts at the edge.
import { type Kysely, sql } from 'kysely';
import type { Database } from '../store/schema.js';
import { dayLabel } from './usage.js';

const DAY_MS = 24 * 3600 * 1000;
const CHINA_OFFSET_MS = 8 * 3600 * 1000;

export interface RevenueDay {
  day: string;
  orders: number;
  plans: number;
  packages: number;
  /** The list price of what was sold, micro-TOKEN. */
  value: number;
  /** Money received, minor units per currency. */
  paid: Record<string, number>;
  /** Money sent back by refunds done that day, minor units per currency. */
  refunded: Record<string, number>;
}

export interface Revenue {
  days: RevenueDay[];
  totals: Omit<RevenueDay, 'day'>;
}

const add = (m: Record<string, number>, currency: string, minor: number): void => {
  m[currency] = (m[currency] ?? 0) + minor;
};

export async function revenueByDay(db: Kysely<Database>, since: number): Promise<Revenue> {
  const dayOf = (col: string) => sql<number>`(${sql.ref(col)} + ${sql.lit(CHINA_OFFSET_MS)}) / ${sql.lit(DAY_MS)}`;
  const sold = await db
    .selectFrom('orders')
    .select([
      dayOf('orders.credited_at').as('day'),
      'kind',
      sql<string>`coalesce(currency, 'CNY')`.as('currency'),
      (eb) => eb.fn.countAll<number>().as('n'),
      (eb) => eb.fn.sum<number>('amount').as('value'),
      sql<number>`sum(coalesce(amount_minor, 0))`.as('minor'),
    ])
    .where('credited_at', 'is not', null)
    .where('credited_at', '>=', since)
    .groupBy([dayOf('orders.credited_at'), 'kind', sql`coalesce(currency, 'CNY')`])
    .execute();
  const back = await db
    .selectFrom('order_refunds')
    .innerJoin('orders', 'orders.id', 'order_refunds.order_id')
    .select([
      dayOf('order_refunds.created_at').as('day'),
      sql<string>`coalesce(orders.currency, 'CNY')`.as('currency'),
      sql<number>`sum(order_refunds.amount_minor)`.as('minor'),
    ])
    .where('order_refunds.status', '=', 'done')
    .where('order_refunds.created_at', '>=', since)
    .groupBy([dayOf('order_refunds.created_at'), sql`coalesce(orders.currency, 'CNY')`])
    .execute();

  const byDay = new Map<string, RevenueDay>();
  const dayRow = (n: number): RevenueDay => {
    const day = dayLabel(Number(n));
    let d = byDay.get(day);
    if (!d) byDay.set(day, (d = { day, orders: 0, plans: 0, packages: 0, value: 0, paid: {}, refunded: {} }));
    return d;
  };
  for (const r of sold) {
    const d = dayRow(r.day);
    const n = Number(r.n);
    d.orders += n;
    if (r.kind === 'plan') d.plans += n;
    else d.packages += n;
    d.value += Number(r.value ?? 0);
    add(d.paid, r.currency, Number(r.minor));
  }
  for (const r of back) add(dayRow(r.day).refunded, r.currency, Number(r.minor));

  const days = [...byDay.values()].sort((a, b) => a.day.localeCompare(b.day));
  const totals: Omit<RevenueDay, 'day'> = { orders: 0, plans: 0, packages: 0, value: 0, paid: {}, refunded: {} };
  for (const d of days) {
    totals.orders += d.orders;
    totals.plans += d.plans;
    totals.packages += d.packages;
    totals.value += d.value;
    for (const [c, v] of Object.entries(d.paid)) add(totals.paid, c, v);
    for (const [c, v] of Object.entries(d.refunded)) add(totals.refunded, c, v);
  }
  return { days, totals };
}
