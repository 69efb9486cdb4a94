// The payment log: every notification (verified or not) and every query answer, as received. This is what an
// operator reads when a customer says "paid, not credited" (new-api#1687: maintainers ask for the callback log).
import type { Kysely } from 'kysely';
import type { Database } from '../../store/schema.js';

/** Raw bodies are kept up to this size; the notify route refuses larger ones anyway. */
const MAX_RAW = 16 * 1024;

export interface PaymentLogEntry {
  instance: string;
  orderId: number | null;
  source: 'notify' | 'query' | 'admin';
  httpMethod?: string | null;
  clientIp?: string | null;
  verified: boolean;
  state?: string | null;
  outcome: string;
  eventId?: string | null;
  raw?: string | null;
}

/**
 * PostgreSQL text cannot hold a NUL byte (SQLite can): anyone may send one in a notification, and refusing the
 * insert would lose the notification from the log and answer 500. NUL is written as the two characters \0.
 */
const noNul = (v: string): string => (v.includes('\0') ? v.replaceAll('\0', '\\0') : v);
const optText = (v: string | null | undefined, max: number): string | null =>
  v === undefined || v === null ? null : noNul(v).slice(0, max);

export async function logPayment(db: Kysely<Database>, e: PaymentLogEntry): Promise<void> {
  await db
    .insertInto('payment_log')
    .values({
      instance: noNul(e.instance).slice(0, 64),
      order_id: e.orderId,
      source: e.source,
      http_method: optText(e.httpMethod, 16),
      client_ip: optText(e.clientIp, 64),
      verified: e.verified ? 1 : 0,
      state: optText(e.state, 64),
      outcome: noNul(e.outcome).slice(0, 200),
      event_id: optText(e.eventId, 200),
      raw: optText(e.raw, MAX_RAW),
      created_at: Date.now(),
    })
    .execute();
}

export interface PaymentLogFilter {
  orderId?: number;
  instance?: string;
  limit: number;
  before?: number;
}

export async function listPaymentLog(db: Kysely<Database>, f: PaymentLogFilter) {
  let q = db.selectFrom('payment_log').selectAll().orderBy('id', 'desc').limit(f.limit);
  if (f.orderId !== undefined) q = q.where('order_id', '=', f.orderId);
  if (f.instance !== undefined) q = q.where('instance', '=', f.instance);
  if (f.before !== undefined) q = q.where('id', '<', f.before);
  return q.execute();
}
