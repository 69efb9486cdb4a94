// The durable delivery queue: one row per (event, endpoint), polled by a worker in every process. A worker
// leases a row with a conditional UPDATE (only if nobody holds an unexpired lease), so two processes never send
// the same attempt; a process that dies mid-send leaves a lease that simply runs out and the row is retried.
import { type Kysely, type Selectable, sql } from 'kysely';
import type { Database } from '../../store/schema.js';
import type { WebhookDeliveriesTable } from '../../store/schema-notifications.js';
import { eventBody, type WebhookEvent } from './events.js';
import { newMessageId } from './signing.js';

export type WebhookDelivery = Selectable<WebhookDeliveriesTable>;

/** Wait before attempt n+1 after n failures (Standard Webhooks' suggested schedule, shortened at the start). */
export const RETRY_DELAYS_MS = [
  5_000,
  30_000,
  2 * 60_000,
  10 * 60_000,
  60 * 60_000,
  3 * 3600_000,
  8 * 3600_000,
] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
export const LEASE_MS = 60_000;

/**
 * Queue `event` for the user's own active endpoints that subscribe to it and for every operator-level one.
 * Returns the number of deliveries queued. One message id per event, shared by its deliveries.
 */
export async function enqueueEvent(
  db: Kysely<Database>,
  event: WebhookEvent,
  data: Record<string, unknown>,
  userId: number | null,
  now: number,
): Promise<number> {
  let q = db.selectFrom('webhook_endpoints').select(['id', 'events']).where('status', '=', 'active');
  q =
    userId === null
      ? q.where('user_id', 'is', null)
      : q.where((eb) => eb.or([eb('user_id', 'is', null), eb('user_id', '=', userId)]));
  const targets = (await q.execute()).filter((e) => (JSON.parse(e.events) as string[]).includes(event));
  if (targets.length === 0) return 0;
  const messageId = newMessageId();
  const payload = eventBody(event, data, now);
  await db
    .insertInto('webhook_deliveries')
    .values(
      targets.map((t) => ({
        endpoint_id: Number(t.id),
        user_id: userId,
        message_id: messageId,
        event,
        payload,
        status: 'pending' as const,
        attempts: 0,
        next_at: now,
        lease_owner: null,
        lease_until: null,
        last_status: null,
        last_error: null,
        created_at: now,
        delivered_at: null,
      })),
    )
    .execute();
  return targets.length;
}

/** Leases up to `limit` due deliveries for `owner`; rows another worker leased first are skipped. */
export async function claimDue(
  db: Kysely<Database>,
  owner: string,
  now: number,
  limit = 20,
): Promise<WebhookDelivery[]> {
  const due = await db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('status', '=', 'pending')
    .where('next_at', '<=', now)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
    .orderBy('next_at')
    .limit(limit)
    .execute();
  const claimed: WebhookDelivery[] = [];
  for (const { id } of due) {
    const row = await db
      .updateTable('webhook_deliveries')
      .set({ lease_owner: owner, lease_until: now + LEASE_MS })
      .where('id', '=', Number(id))
      .where('status', '=', 'pending')
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
      .returningAll()
      .executeTakeFirst();
    if (row) claimed.push(row);
  }
  return claimed;
}

export interface AttemptResult {
  ok: boolean;
  status: number | null;
  /** What the owner sees (last_error): never a resolved address. */
  error: string | null;
  /** The full reason, for the operator's log only. */
  detail?: string;
}

/** Records one attempt: delivered, retried after the next delay, or failed for good after MAX_ATTEMPTS. */
export async function recordAttempt(
  db: Kysely<Database>,
  d: WebhookDelivery,
  owner: string,
  r: AttemptResult,
  now: number,
): Promise<void> {
  const attempts = Number(d.attempts) + 1;
  const base = {
    attempts,
    lease_owner: null,
    lease_until: null,
    last_status: r.status,
    last_error: r.error?.slice(0, 500) ?? null,
  };
  const set = r.ok
    ? { ...base, status: 'delivered' as const, delivered_at: now }
    : attempts >= MAX_ATTEMPTS
      ? { ...base, status: 'failed' as const }
      : { ...base, next_at: now + RETRY_DELAYS_MS[attempts - 1] };
  // Only the lease holder writes: a worker whose lease ran out (and was taken over) must not overwrite.
  await db
    .updateTable('webhook_deliveries')
    .set(set)
    .where('id', '=', Number(d.id))
    .where('lease_owner', '=', owner)
    .execute();
}

/** Sends a delivery again now, whatever its state; the message id stays, so receivers can dedupe. */
export async function replayDelivery(db: Kysely<Database>, id: number, now: number): Promise<boolean> {
  const res = await db
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', next_at: now, attempts: 0, lease_owner: null, lease_until: null, delivered_at: null })
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

export async function listDeliveries(
  db: Kysely<Database>,
  endpointId: number,
  limit: number,
  before?: number,
): Promise<WebhookDelivery[]> {
  let q = db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', endpointId);
  if (before !== undefined) q = q.where('id', '<', before);
  return q.orderBy('id', 'desc').limit(limit).execute();
}

/** Deletes finished (delivered or failed) deliveries created before `cutoff`; pending ones are kept. */
export async function pruneDeliveries(db: Kysely<Database>, cutoff: number): Promise<number> {
  const res = await db
    .deleteFrom('webhook_deliveries')
    .where('status', '!=', 'pending')
    .where('created_at', '<', cutoff)
    .executeTakeFirst();
  return Number(res.numDeletedRows);
}

export async function pendingCount(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select(sql<number>`count(*)`.as('n'))
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}
