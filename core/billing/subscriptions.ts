// Subscriptions: which plan a user has now. Renewing extends the end date from the later of now and the
// current end, so a renewal bought early loses no days.
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../store/schema.js';

export interface ActiveSubscription {
  planId: string;
  startsAt: number;
  endsAt: number;
}

const DAY_MS = 24 * 3600 * 1000;

export async function activeSubscription(
  db: Kysely<Database>,
  userId: number,
  now = Date.now(),
): Promise<ActiveSubscription | null> {
  const row = await db
    .selectFrom('subscriptions')
    .select(['plan_id', 'starts_at', 'ends_at'])
    .where('user_id', '=', userId)
    .where('starts_at', '<=', now)
    .where('ends_at', '>', now)
    .orderBy('ends_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ? { planId: row.plan_id, startsAt: Number(row.starts_at), endsAt: Number(row.ends_at) } : null;
}

/** Add `days` of `planId` for the user inside the caller's transaction. `ref` makes it happen once. */
export async function extendSubscription(
  trx: Transaction<Database>,
  userId: number,
  planId: string,
  days: number,
  ref: string,
  now = Date.now(),
): Promise<ActiveSubscription> {
  const current = await trx
    .selectFrom('subscriptions')
    .select(['ends_at'])
    .where('user_id', '=', userId)
    .where('plan_id', '=', planId)
    .where('ends_at', '>', now)
    .orderBy('ends_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  const startsAt = current ? Number(current.ends_at) : now;
  const endsAt = startsAt + days * DAY_MS;
  await trx
    .insertInto('subscriptions')
    .values({ user_id: userId, plan_id: planId, starts_at: startsAt, ends_at: endsAt, ref, created_at: now })
    .execute();
  return { planId, startsAt: current ? now : startsAt, endsAt };
}
