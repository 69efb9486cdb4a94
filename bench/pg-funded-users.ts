// Users for the PostgreSQL benches that drive the money writes alone (scale-sim.ts, money-function.ts): `count`
// users funded with 10^6 TOKEN each by a grant in the ledger, so reconcile holds from the start, in two statements.
import { type Kysely, sql } from 'kysely';
import type { Database } from '../core/store/schema.js';

/** Their ids, in creation order; `tag` names them (e-mail and grant reference). */
export async function fundedUsers(db: Kysely<Database>, count: number, tag: string): Promise<number[]> {
  const now = Date.now();
  const inserted = await sql<{ id: string }>`insert into users (email, password_hash, balance, created_at)
    select ${tag} || g || '@example.com', 'x', 1000000000000, ${now} from generate_series(1, ${count}) g
    returning id`.execute(db);
  const ids = inserted.rows.map((r) => Number(r.id));
  await sql`insert into ledger (user_id, amount, balance_after, kind, ref, created_at)
    select id, balance, balance, 'grant', ${tag} || ':' || id, ${now} from users
    where id = any(${ids})`.execute(db);
  return ids;
}
