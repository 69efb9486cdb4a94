// Per-user alert settings: a balance line in micro-TOKEN, a plan-quota percentage, and whether to mail.
// Webhook and chat-bot channels are webhook endpoints subscribed to balance.low (core/notify/webhooks).
import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../../store/schema.js';
import type { AlertSettingsTable } from '../../store/schema-notifications.js';

export type AlertSettings = Selectable<AlertSettingsTable>;

export interface AlertSettingsInput {
  balanceThreshold: number | null;
  quotaPercent: number | null;
  email: boolean;
}

export async function readAlertSettings(db: Kysely<Database>, userId: number): Promise<AlertSettings | undefined> {
  return db.selectFrom('alert_settings').selectAll().where('user_id', '=', userId).executeTakeFirst();
}

/** Saving re-arms the alert: a new line starts a new watch. */
export async function saveAlertSettings(
  db: Kysely<Database>,
  userId: number,
  s: AlertSettingsInput,
  now = Date.now(),
): Promise<AlertSettings> {
  const values = {
    balance_threshold: s.balanceThreshold,
    quota_percent: s.quotaPercent,
    email: s.email ? 1 : 0,
    armed: 1,
    updated_at: now,
  };
  return db
    .insertInto('alert_settings')
    .values({ user_id: userId, last_fired_at: null, ...values })
    .onConflict((oc) => oc.column('user_id').doUpdateSet(values))
    .returningAll()
    .executeTakeFirstOrThrow();
}

export interface AlertLine {
  userId: number;
  threshold: number | null;
  quotaPercent: number | null;
  armed: boolean;
}

/** Every user's lines, for the in-memory snapshot the billed path compares against. */
export async function allAlertLines(db: Kysely<Database>): Promise<AlertLine[]> {
  const rows = await db
    .selectFrom('alert_settings')
    .select(['user_id', 'balance_threshold', 'quota_percent', 'armed'])
    .where((eb) => eb.or([eb('balance_threshold', 'is not', null), eb('quota_percent', 'is not', null)]))
    .execute();
  return rows.map((r) => ({
    userId: Number(r.user_id),
    threshold: r.balance_threshold === null ? null : Number(r.balance_threshold),
    quotaPercent: r.quota_percent === null ? null : Number(r.quota_percent),
    armed: Number(r.armed) === 1,
  }));
}

/** A plan-quota alert goes out once per user, China day and percentage, however many processes see it. */
export async function claimQuotaNotice(
  db: Kysely<Database>,
  userId: number,
  day: string,
  percent: number,
  now: number,
): Promise<boolean> {
  const res = await db
    .insertInto('expiry_notices')
    .values({ notice: `quota:${userId}:${day}:${percent}`, created_at: now })
    .onConflict((oc) => oc.column('notice').doNothing())
    .executeTakeFirst();
  return Number(res.numInsertedOrUpdatedRows ?? 0n) === 1;
}

/**
 * Records a crossing; false when the line changed meanwhile. No "armed = 1" condition: the ledger serialises
 * balance changes, so exactly one change goes from at-or-above the line to below it, and that change is the
 * crossing whatever the flag says (a top-up this process did not see may have re-armed it).
 */
export async function markFired(
  db: Kysely<Database>,
  userId: number,
  threshold: number,
  now: number,
): Promise<boolean> {
  const res = await db
    .updateTable('alert_settings')
    .set({ armed: 0, last_fired_at: now })
    .where('user_id', '=', userId)
    .where('balance_threshold', '=', threshold)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

export async function rearm(db: Kysely<Database>, userId: number): Promise<void> {
  await db
    .updateTable('alert_settings')
    .set({ armed: 1 })
    .where('user_id', '=', userId)
    .where('armed', '=', 0)
    .execute();
}
