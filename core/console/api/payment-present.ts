// Orders and payment actions at the console edge: the order with its payment snapshot, and the buyer's next
// step with a server-rendered QR code (the browser needs no QR library and no third-party image service).
import QRCode from 'qrcode';
import type { Locale } from '../../accounts/locale.js';
import type { OrderRow, PaymentAction } from '../../billing/payment-provider.js';
import type { Payments } from '../../billing/payments/provider-registry.js';
import { asMicro, toToken } from '../../kernel/money.js';
import type { PaymentAction as PaymentActionAnswer, PaymentOrder } from '../contract/components.js';
import { iso, presentOrder } from './present.js';

/**
 * What a pending order without an online payment tells the buyer to do, in `lang`: whom to pay, how much, the
 * order number to quote, what happens next (the manual method's instructions). null otherwise.
 */
function instructionsOf(o: OrderRow, lang: Locale): string | null {
  if (o.status !== 'pending' || !o.pay_action) return null;
  const action = JSON.parse(o.pay_action) as PaymentAction;
  return action.type === 'none' ? action.instructions[lang] : null;
}

/** `lang`: the caller's language, for `instructions`. */
export function presentPaymentOrder(o: OrderRow, lang: Locale = 'en'): PaymentOrder {
  const minor = o.amount_minor === null ? null : Number(o.amount_minor);
  return {
    ...presentOrder(o),
    status: o.status,
    instance: o.instance ?? o.provider,
    method: o.method,
    currency: o.currency ?? 'CNY',
    /** What the buyer pays, in the currency's major unit (yuan, dollars). */
    pay_amount: minor === null ? null : minor / 100,
    tokens: o.tokens_micro === null ? null : toToken(asMicro(o.tokens_micro)),
    expires_at: iso(o.expires_at),
    credited_at: iso(o.credited_at),
    late: Number(o.late ?? 0) === 1,
    refunded_tokens: toToken(asMicro(o.refunded_micro ?? 0)),
    instructions: instructionsOf(o, lang),
  };
}

export async function presentAction(
  payments: Payments,
  o: OrderRow,
  action: PaymentAction,
  lang: Locale = 'en',
): Promise<PaymentActionAnswer> {
  const provider = payments.providers.get(o.instance ?? o.provider);
  const out: PaymentActionAnswer = {
    provider: o.instance ?? o.provider,
    kind: provider?.kind ?? o.provider,
    action,
  };
  if (action.type === 'none') out.message = action.instructions[lang];
  if (action.type === 'qrcode')
    out.qr_svg = await QRCode.toString(action.text, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' });
  return out;
}
