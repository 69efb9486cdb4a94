// Proves the money invariants: every balance equals the sum of its ledger, every `held` equals its holds.
import { type Kysely, sql } from 'kysely';
import { asMicro } from '../kernel/money.js';
import type { Database } from '../store/schema.js';

export interface Mismatch {
  userId: number;
  email: string;
  balance: number;
  ledgerSum: number;
  held: number;
  holdsSum: number;
}

export interface ReconcileReport {
  users: number;
  ok: boolean;
  mismatches: Mismatch[];
}

export async function reconcile(db: Kysely<Database>): Promise<ReconcileReport> {
  const rows = await db
    .selectFrom('users')
    .select([
      'users.id',
      'users.email',
      'users.balance',
      'users.held',
      sql<number>`(select coalesce(sum(amount), 0) from ledger where ledger.user_id = users.id)`.as('ledger_sum'),
      sql<number>`(select coalesce(sum(amount), 0) from holds where holds.user_id = users.id)`.as('holds_sum'),
    ])
    .execute();
  const mismatches: Mismatch[] = [];
  for (const r of rows) {
    const m: Mismatch = {
      userId: Number(r.id),
      email: r.email,
      balance: asMicro(r.balance),
      ledgerSum: asMicro(r.ledger_sum),
      held: asMicro(r.held),
      holdsSum: asMicro(r.holds_sum),
    };
    if (m.balance !== m.ledgerSum || m.held !== m.holdsSum || m.balance < 0) mismatches.push(m);
  }
  return { users: rows.length, ok: mismatches.length === 0, mismatches };
}
