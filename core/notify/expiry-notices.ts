// plan.expiring and key.expiring: time-based, so a poller is right here. Every few hours each process looks for
// subscriptions and keys ending within the notice window; inserting the notice's row first makes exactly one
// process emit it, and an end date that moves (a renewal) is a new notice.
import type { Kysely } from 'kysely';
import type { Logger } from '../kernel/logger.js';
import type { Database } from '../store/schema.js';
import { pruneDeliveries } from './webhooks/queue.js';
import type { Webhooks } from './webhooks/webhooks.js';

export const NOTICE_WINDOW_MS = 3 * 24 * 3600_000;
/** The delivery log keeps finished deliveries this long. */
export const DELIVERY_LOG_DAYS = 30;
const EVERY_MS = 6 * 3600_000;

async function claimNotice(db: Kysely<Database>, notice: string, now: number): Promise<boolean> {
  const res = await db
    .insertInto('expiry_notices')
    .values({ notice, created_at: now })
    .onConflict((oc) => oc.column('notice').doNothing())
    .executeTakeFirst();
  return Number(res.numInsertedOrUpdatedRows ?? 0n) === 1;
}

/** Emits the notices due at `now`; returns how many were emitted. */
export async function sendExpiryNotices(db: Kysely<Database>, webhooks: Webhooks, now: number): Promise<number> {
  let sent = 0;
  const horizon = now + NOTICE_WINDOW_MS;
  // Only a user's latest subscription row counts: an extension writes a later ends_at.
  const subs = await db
    .selectFrom('subscriptions')
    .innerJoin('users', 'users.id', 'subscriptions.user_id')
    .select([
      'subscriptions.id',
      'subscriptions.user_id',
      'subscriptions.plan_id',
      'subscriptions.ends_at',
      'users.email',
    ])
    .where('subscriptions.ends_at', '>', now)
    .where('subscriptions.ends_at', '<=', horizon)
    .execute();
  for (const s of subs) {
    const later = await db
      .selectFrom('subscriptions')
      .select('id')
      .where('user_id', '=', s.user_id)
      .where('ends_at', '>', Number(s.ends_at))
      .executeTakeFirst();
    if (later) continue;
    if (!(await claimNotice(db, `plan:${Number(s.id)}:${Number(s.ends_at)}`, now))) continue;
    await webhooks.emit(
      'plan.expiring',
      {
        user_id: Number(s.user_id),
        email: s.email,
        plan_id: s.plan_id,
        ends_at: new Date(Number(s.ends_at)).toISOString(),
      },
      Number(s.user_id),
    );
    sent++;
  }
  const keys = await db
    .selectFrom('api_keys')
    .select(['id', 'user_id', 'name', 'prefix', 'expires_at'])
    .where('deleted_at', 'is', null)
    .where('status', '=', 'active')
    .where('expires_at', '>', now)
    .where('expires_at', '<=', horizon)
    .execute();
  for (const k of keys) {
    if (!(await claimNotice(db, `key:${Number(k.id)}:${Number(k.expires_at)}`, now))) continue;
    await webhooks.emit(
      'key.expiring',
      {
        user_id: Number(k.user_id),
        key_id: Number(k.id),
        key_name: k.name,
        key_prefix: k.prefix,
        expires_at: new Date(Number(k.expires_at)).toISOString(),
      },
      Number(k.user_id),
    );
    sent++;
  }
  return sent;
}

export function startExpiryNotices(db: Kysely<Database>, webhooks: Webhooks, logger: Logger): () => void {
  const run = (): void => {
    sendExpiryNotices(db, webhooks, Date.now())
      .then((n) => n > 0 && logger.info('expiry notices queued', { notices: n }))
      .then(() => pruneDeliveries(db, Date.now() - DELIVERY_LOG_DAYS * 24 * 3600_000))
      .catch((e: Error) => logger.error('expiry notices failed', { reason: e.message }));
  };
  const first = setTimeout(run, 30_000);
  const timer = setInterval(run, EVERY_MS);
  first.unref();
  timer.unref();
  return () => {
    clearTimeout(first);
    clearInterval(timer);
  };
}
