// Admin lists show people by email and can be searched the way an operator asks: by (part of) an email, an
// order number (#123 or 123) or an API key prefix (sk_...). These helpers turn a search text into a filter and
// ids into emails, in one query per list.
import { type Expression, type Kysely, type SqlBool, sql } from 'kysely';
import type { OrderRow } from '../../billing/orders.js';
import type { Database } from '../../store/schema.js';

export type Search = { kind: 'order'; id: number } | { kind: 'key'; prefix: string } | { kind: 'email'; like: string };

/** LIKE wildcards in the search text are matched literally. */
function likeEscaped(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

export function parseSearch(raw: string | undefined): Search | undefined {
  const q = raw?.trim();
  if (!q) return undefined;
  const order = /^#?(\d{1,15})$/.exec(q);
  if (order) return { kind: 'order', id: Number(order[1]) };
  if (/^sk_/i.test(q)) return { kind: 'key', prefix: q.slice(0, 64) };
  return { kind: 'email', like: `%${likeEscaped(q.toLowerCase().slice(0, 254))}%` };
}

/** Users whose email contains the text, or who own a key whose prefix starts with it (as a subquery). */
export function usersMatching(db: Kysely<Database>, s: Exclude<Search, { kind: 'order' }>) {
  if (s.kind === 'key') {
    // Shown prefixes are the secret's first 11 characters; a longer text (a whole secret pasted) still matches.
    const head = s.prefix.slice(0, 11);
    return db
      .selectFrom('api_keys')
      .select('user_id')
      .where(sql<SqlBool>`prefix like ${`${likeEscaped(head)}%`} escape '\\'`);
  }
  return db.selectFrom('users').select('id as user_id').where(sql<SqlBool>`lower(email) like ${s.like} escape '\\'`);
}

/** A where-expression on a user id column for a user search. */
export function userIdIn(
  db: Kysely<Database>,
  column: string,
  s: Exclude<Search, { kind: 'order' }>,
): Expression<SqlBool> {
  return sql<SqlBool>`${sql.ref(column)} in (${usersMatching(db, s)})`;
}

/** The ids of the users a search matches, at most `max`. */
export async function userIdsMatching(
  db: Kysely<Database>,
  s: Exclude<Search, { kind: 'order' }>,
  max = 1000,
): Promise<number[]> {
  const rows = await db
    .selectFrom('users')
    .select('id')
    .where(userIdIn(db, 'users.id', s))
    .orderBy('id')
    .limit(max)
    .execute();
  return rows.map((r) => Number(r.id));
}

/** id -> email for the given user ids (nulls and repeats allowed). */
export async function emailsOf(
  db: Kysely<Database>,
  ids: ReadonlyArray<number | null | undefined>,
): Promise<Map<number, string>> {
  const wanted = [...new Set(ids.filter((id): id is number => typeof id === 'number'))];
  if (wanted.length === 0) return new Map();
  const rows = await db.selectFrom('users').select(['id', 'email']).where('id', 'in', wanted).execute();
  return new Map(rows.map((r) => [Number(r.id), r.email]));
}

export interface OrderSearch {
  status?: OrderRow['status'];
  limit: number;
  /** Orders with a smaller id (pagination). */
  before?: number;
  search?: Search;
}

/** All users' orders, newest first: one order by number, or those of the users a search matches. */
export async function searchOrders(db: Kysely<Database>, f: OrderSearch): Promise<OrderRow[]> {
  let q = db.selectFrom('orders').selectAll().orderBy('id', 'desc').limit(f.limit);
  if (f.status !== undefined) q = q.where('status', '=', f.status);
  if (f.before !== undefined) q = q.where('id', '<', f.before);
  if (f.search?.kind === 'order') q = q.where('id', '=', f.search.id);
  else if (f.search) q = q.where(userIdIn(db, 'orders.user_id', f.search));
  return q.execute();
}
