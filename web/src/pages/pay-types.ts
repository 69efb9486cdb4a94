// Shapes of the payment endpoints, beside types.ts so the payment pages own their types.
import type { Order } from '../types.js';

export type PayStatus = 'pending' | 'paid' | 'cancelled' | 'expired' | 'refunded' | 'amount_mismatch';

export interface PayOrder extends Omit<Order, 'status'> {
  status: PayStatus;
  instance: string;
  method: string | null;
  currency: string;
  pay_amount: number | null;
  tokens: number | null;
  expires_at: string | null;
  /** The operator's payment instructions for this order, in the language asked for (manual payments). */
  instructions?: string | null;
  credited_at: string | null;
  late: boolean;
  refunded_tokens: number;
}

export type PayAction =
  | { type: 'redirect'; url: string }
  | { type: 'form'; url: string; fields: Record<string, string> }
  | { type: 'qrcode'; text: string }
  | { type: 'none'; instructions: { zh: string; en: string } };

export interface Payment {
  provider: string;
  kind: string;
  action: PayAction;
  qr_svg?: string;
}

export interface PaymentMethod {
  id: string;
  kind: string;
  methods: string[];
  currency: string;
  label: { zh: string; en: string };
}

export function money(o: Pick<PayOrder, 'pay_amount' | 'currency' | 'amount'>): string {
  const amount = o.pay_amount ?? o.amount;
  return o.currency === 'CNY' ? `¥${amount.toFixed(2)}` : `${amount.toFixed(2)} ${o.currency}`;
}
