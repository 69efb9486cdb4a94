// How an order gets paid. A provider tells the buyer how to pay (startPayment) and decides whether a
// confirmation that arrives later (an admin's click, a provider's webhook) proves the payment (verify).
// Fulfilment itself is provider-independent: core/billing/orders.ts confirmOrder, exactly once.
import type { Selectable } from 'kysely';
import type { OrdersTable } from '../store/schema.js';

export type OrderRow = Selectable<OrdersTable>;

export interface PaymentInstructions {
  provider: string;
  /** What the buyer should do next, in plain words. */
  message: string;
  /** A page to send the buyer to, for providers with a hosted checkout. */
  url?: string;
}

/** What arrived to prove a payment: who confirmed it, or a provider's signed notification. */
export interface PaymentEvidence {
  confirmedBy?: number;
  payload?: unknown;
}

export type Verification = { paid: true } | { paid: false; reason: string };

export interface PaymentProvider {
  readonly name: string;
  startPayment(order: OrderRow): Promise<PaymentInstructions>;
  verify(order: OrderRow, evidence: PaymentEvidence): Promise<Verification>;
}

/** The built-in provider: the buyer pays outside Tollgate (bank transfer, cash, invoice) and an admin confirms. */
export const manualProvider: PaymentProvider = {
  name: 'manual',
  async startPayment(order) {
    return {
      provider: 'manual',
      message: `Order ${order.id} is waiting for payment. Pay the operator as agreed and quote the order number; an administrator confirms it and the purchase is credited at once.`,
    };
  },
  async verify(_order, evidence) {
    return evidence.confirmedBy !== undefined ? { paid: true } : { paid: false, reason: 'manual payments are confirmed by an administrator' };
  },
};

const PROVIDERS = new Map<string, PaymentProvider>([[manualProvider.name, manualProvider]]);

export function paymentProvider(name: string): PaymentProvider | undefined {
  return PROVIDERS.get(name);
}

/** The provider new orders use. */
export function defaultProvider(): PaymentProvider {
  return manualProvider;
}
