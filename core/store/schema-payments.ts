// Row types of the payment tables (migration 005); the order columns it adds are in schema.ts OrdersTable.
import type { Generated } from 'kysely';

/** Every notification and query answer as received, verified or not: what an operator reads when "paid, not credited". */
export interface PaymentLogTable {
  id: Generated<number>;
  instance: string;
  order_id: number | null;
  /** notify | query | admin */
  source: string;
  http_method: string | null;
  client_ip: string | null;
  verified: number;
  state: string | null;
  outcome: string;
  event_id: string | null;
  raw: string | null;
  created_at: number;
}

export interface OrderRefundsTable {
  id: Generated<number>;
  order_id: number;
  refund_no: string;
  amount_minor: number;
  tokens_micro: number;
  /** unknown: left pending by a stopped process and released by the sweeper (the provider may have paid it). */
  status: 'pending' | 'done' | 'failed' | 'unknown';
  reason: string | null;
  created_by: number | null;
  created_at: number;
}

export interface PaymentTables {
  payment_log: PaymentLogTable;
  order_refunds: OrderRefundsTable;
}
