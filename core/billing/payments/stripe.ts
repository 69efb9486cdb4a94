// Stripe Checkout: one Checkout Session per order with price_data from the order's snapshot (never a fixed
// Price: new-api#5557), webhooks verified over the raw body with the configured secret (never empty:
// new-api#4353), the paid state only from payment_status 'paid' (delayed methods complete unpaid).
import Stripe from 'stripe';
import {
  type NotifyRequest,
  type OrderRow,
  outTradeNoOf,
  type PaymentProvider,
  type PaymentResult,
  SignatureError,
} from '../payment-provider.js';
import { type InstanceConfig, label, optionalString, requireString } from './config.js';

export function createStripe(c: InstanceConfig): PaymentProvider {
  const secretKey = requireString(c, 'secret_key');
  const webhookSecret = requireString(c, 'webhook_secret');
  const currency = requireString(c, 'currency').toLowerCase();
  if (!/^[a-z]{3}$/.test(currency)) throw new Error(`payments.${c.id}.currency must be an ISO 4217 code such as usd`);
  // How many minor units of `currency` one TOKEN costs, e.g. 14 (US cents) when 1 TOKEN = 1 CNY ≈ 0.14 USD;
  // for currencies without decimals (JPY, KRW) the minor unit is the unit itself.
  const perToken = Number(c.minor_per_token);
  if (!Number.isFinite(perToken) || perToken <= 0)
    throw new Error(
      `payments.${c.id}.minor_per_token must be a positive number (minor units of ${currency} per TOKEN)`,
    );
  const live = secretKey.startsWith('sk_live_');
  const host = optionalString(c, 'api_host');
  const stripe = new Stripe(secretKey, {
    maxNetworkRetries: 2,
    telemetry: false,
    timeout: 15_000,
    ...(host
      ? {
          host,
          port: Number(c.api_port ?? 443),
          protocol: (optionalString(c, 'api_protocol') ?? 'https') as 'http' | 'https',
        }
      : {}),
  });

  const fromSession = (session: Stripe.Checkout.Session, eventId?: string): Omit<PaymentResult, 'state'> => ({
    outTradeNo: session.metadata?.out_trade_no ?? session.client_reference_id ?? undefined,
    providerTradeNo:
      typeof session.payment_intent === 'string' ? session.payment_intent : (session.payment_intent?.id ?? session.id),
    amountMinor: session.amount_total ?? -1,
    currency: (session.currency ?? '').toUpperCase(),
    eventId,
  });

  return {
    id: c.id,
    kind: 'stripe',
    methods: ['card'],
    currency: currency.toUpperCase(),
    label: label(c, { zh: '银行卡 (Stripe)', en: 'Card (Stripe)' }),
    amountFor: (priceMicro) => Math.ceil((priceMicro * perToken) / 1_000_000),
    async createPayment(s, urls) {
      const session = await stripe.checkout.sessions.create(
        {
          mode: 'payment',
          line_items: [
            { quantity: 1, price_data: { currency, unit_amount: s.amountMinor, product_data: { name: s.subject } } },
          ],
          client_reference_id: s.outTradeNo,
          metadata: { out_trade_no: s.outTradeNo },
          success_url: urls.returnUrl,
          cancel_url: urls.returnUrl,
          expires_at: Math.floor(s.expiresAt / 1000),
        },
        { idempotencyKey: `order-${s.outTradeNo}` },
      );
      if (!session.url) throw new Error('Stripe returned a session without a url');
      return { action: { type: 'redirect', url: session.url }, providerRef: session.id };
    },
    verifyNotification(req: NotifyRequest): PaymentResult {
      let event: Stripe.Event;
      try {
        event = stripe.webhooks.constructEvent(req.rawBody, req.headers['stripe-signature'] ?? '', webhookSecret);
      } catch (err) {
        throw new SignatureError(`Stripe signature: ${(err as Error).message.slice(0, 120)}`);
      }
      if (event.livemode !== live)
        throw new SignatureError(
          `Stripe ${event.livemode ? 'live' : 'test'} event for a ${live ? 'live' : 'test'} key`,
        );
      if (!event.type.startsWith('checkout.session.')) return { state: 'ignored', eventId: event.id };
      const session = event.data.object as Stripe.Checkout.Session;
      const base = fromSession(session, event.id);
      switch (event.type) {
        case 'checkout.session.completed':
          return { ...base, state: session.payment_status === 'paid' ? 'paid' : 'pending' };
        case 'checkout.session.async_payment_succeeded':
          return { ...base, state: 'paid' };
        case 'checkout.session.async_payment_failed':
          return { ...base, state: 'failed' };
        case 'checkout.session.expired':
          return { ...base, state: 'closed' };
        default:
          return { state: 'ignored', eventId: event.id };
      }
    },
    ack: (ok) => ({ status: ok ? 200 : 400, contentType: 'application/json', body: JSON.stringify({ received: ok }) }),
    async queryPayment(order: OrderRow): Promise<PaymentResult> {
      if (!order.provider_ref) return { state: 'unknown', detail: 'no Checkout Session for this order' };
      try {
        const session = await stripe.checkout.sessions.retrieve(order.provider_ref);
        const base = fromSession(session);
        if (session.payment_status === 'paid') return { ...base, state: 'paid' };
        if (session.status === 'expired') return { ...base, state: 'closed' };
        return { ...base, outTradeNo: base.outTradeNo ?? outTradeNoOf(Number(order.id)), state: 'pending' };
      } catch (err) {
        return { state: 'unknown', detail: `Stripe query failed: ${(err as Error).message.slice(0, 120)}` };
      }
    },
    async closePayment(order: OrderRow): Promise<void> {
      if (order.provider_ref) await stripe.checkout.sessions.expire(order.provider_ref);
    },
    async refund(order: OrderRow, amountMinor: number, refundNo: string): Promise<void> {
      if (!order.provider_trade_no?.startsWith('pi_'))
        throw new Error('this order has no Stripe PaymentIntent to refund');
      await stripe.refunds.create(
        { payment_intent: order.provider_trade_no, amount: amountMinor },
        { idempotencyKey: refundNo },
      );
    },
  };
}
