// The payment-provider seam. A provider *kind* (manual, epay, stripe, alipay, wxpay) is code; an *instance* is
// one configured merchant account of a kind (core/billing/payments/config.ts). Providers translate: they build
// the buyer's next step, verify and normalise notifications and query answers, and speak the provider's reply
// format. They never touch the database: the core (core/billing/payments/settle-payment.ts) owns orders, their state
// machine, the amount check, crediting exactly once, the sweeper and the payment log.
import type { Selectable } from 'kysely';
import type { OrdersTable } from '../store/schema.js';

export type OrderRow = Selectable<OrdersTable>;

/** What an order sells and for how much, frozen when the order is made (prices hot-reload). */
export interface PaymentSnapshot {
  orderId: number;
  /** Our order number at the provider (out_trade_no): ASCII, 6-32 characters. */
  outTradeNo: string;
  subject: string;
  /** In the currency's minor unit (fen, cents; yen have none). */
  amountMinor: number;
  currency: string;
  expiresAt: number;
  method: string | null;
  clientIp: string;
  /** operations.yaml `manual_payment.instructions`: what a manual method without its own tells the buyer. */
  instructions?: Bilingual | null;
}

export interface PaymentUrls {
  /** Where the provider posts its notifications: PUBLIC_BASE_URL/pay/notify/<instance>, no query string. */
  notifyUrl: string;
  /** Where the buyer's browser comes back to; it only displays the order (and may trigger a query). */
  returnUrl: string;
}

/** Customer-facing text in both console languages. */
export interface Bilingual {
  zh: string;
  en: string;
}

/** The buyer's next step. */
export type PaymentAction =
  | { type: 'redirect'; url: string }
  | { type: 'form'; url: string; fields: Record<string, string> }
  | { type: 'qrcode'; text: string }
  | { type: 'none'; instructions: Bilingual };

export interface CreatedPayment {
  action: PaymentAction;
  /** The provider's id for this attempt (a Stripe session id), kept for query, close and refund. */
  providerRef: string | null;
}

export interface NotifyRequest {
  method: string;
  headers: Record<string, string | undefined>;
  query: Record<string, string>;
  rawBody: Buffer;
}

/**
 * A normalised provider answer. `unknown` (a query that failed, returned HTML, or a trade the provider does not
 * know yet) is never final: the core leaves the order as it is.
 */
export type PaymentState = 'paid' | 'pending' | 'failed' | 'closed' | 'refunded' | 'ignored' | 'unknown';

export interface PaymentResult {
  state: PaymentState;
  outTradeNo?: string;
  providerTradeNo?: string;
  amountMinor?: number;
  currency?: string;
  /** For deduplication in the payment log (Stripe event id, WeChat notify id, Alipay notify_id). */
  eventId?: string;
  /** Short operator-facing reason (never shown to customers). */
  detail?: string;
}

/** The exact HTTP reply a provider expects to a notification. */
export interface NotifyReply {
  status: number;
  contentType: string;
  body: string;
}

export class SignatureError extends Error {}

export interface PaymentProvider {
  /** Instance id, also the notify path segment. */
  readonly id: string;
  readonly kind: string;
  /** Methods the buyer chooses from (epay: alipay/wxpay/qqpay; alipay: page/qr; others one). */
  readonly methods: readonly string[];
  readonly currency: string;
  /** Display name for the buyer. */
  readonly label: Bilingual;
  /** Accepted difference between notified and ordered amount (some EPay gateways shift by a few fen); default 0. */
  readonly amountToleranceMinor?: number;
  /** minor units of `currency` for an amount of micro-TOKEN (1 TOKEN = 1 CNY unless configured). */
  amountFor(priceMicro: number): number;
  createPayment(snapshot: PaymentSnapshot, urls: PaymentUrls): Promise<CreatedPayment>;
  /** Pure over the raw request; throws SignatureError on anything not provably from the provider. */
  verifyNotification(req: NotifyRequest): PaymentResult;
  ack(ok: boolean): NotifyReply;
  queryPayment(order: OrderRow): Promise<PaymentResult>;
  closePayment?(order: OrderRow): Promise<void>;
  /** Refund `amountMinor` of the order; `refundNo` makes a retry safe. Throws when the provider refuses. */
  refund?(order: OrderRow, amountMinor: number, refundNo: string): Promise<void>;
}

/** Our out_trade_no for an order id; providers need 6-32 ASCII characters. */
export function outTradeNoOf(orderId: number): string {
  return `TG${String(orderId).padStart(10, '0')}`;
}

export function orderIdOf(outTradeNo: string | undefined): number | null {
  const m = /^TG(\d{10,16})$/.exec(outTradeNo ?? '');
  return m ? Number(m[1]) : null;
}
