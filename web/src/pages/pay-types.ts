// Shapes of the payment endpoints, from their definitions (core/console/contract/orders.ts), beside types.ts so
// the payment pages own their names for them.
import type { Reply } from '../types.js';

export type PayOrder = Reply<'getOrder'>['order'];
export type PayStatus = PayOrder['status'];
export type Payment = NonNullable<Reply<'getOrder'>['payment']>;
export type PayAction = Payment['action'];
export type PaymentMethod = Reply<'paymentMethods'>['methods'][number];

export function money(o: Pick<PayOrder, 'pay_amount' | 'currency' | 'amount'>): string {
  const amount = o.pay_amount ?? o.amount;
  return o.currency === 'CNY' ? `¥${amount.toFixed(2)}` : `${amount.toFixed(2)} ${o.currency}`;
}
