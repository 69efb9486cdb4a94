// Provider kinds (code) -> configured instances, built once at start. An instance with a bad or empty secret
// stops the start with its name in the message; online instances need PUBLIC_BASE_URL for their notify URLs.
import type { PaymentSettings } from '../../config/payment-env.js';
import type { PaymentProvider } from '../payment-provider.js';
import { createAlipay } from './alipay.js';
import { type InstanceConfig, readPaymentsFile } from './config.js';
import { createEpay } from './epay.js';
import { createManual } from './manual.js';
import { createStripe } from './stripe.js';
import { createWxpay } from './wxpay.js';

const KINDS: Record<string, (c: InstanceConfig) => PaymentProvider> = {
  manual: createManual,
  epay: createEpay,
  stripe: createStripe,
  alipay: createAlipay,
  wxpay: createWxpay,
};

/** What an order credited tells the rest of the system (webhooks hook in here: order.paid). */
export interface OrderCreditedEvent {
  orderId: number;
  userId: number;
  kind: 'plan' | 'package';
  itemId: string;
  amountMinor: number;
  currency: string;
  tokensMicro: number;
  instance: string;
  late: boolean;
}

export interface Payments {
  settings: PaymentSettings;
  providers: Map<string, PaymentProvider>;
  /** The instance used when a buyer names none: the first configured, else manual. */
  defaultInstance: string;
  notifyUrl(instance: string): string;
  returnUrl(orderId: number): string;
  /** Called after an order's credit committed; a failing listener is logged, never undoes the credit. */
  onOrderCredited: Array<(e: OrderCreditedEvent) => void | Promise<void>>;
}

export function buildProviders(configs: InstanceConfig[]): Map<string, PaymentProvider> {
  const providers = new Map<string, PaymentProvider>();
  for (const c of configs) {
    const make = KINDS[c.kind];
    if (!make) throw new Error(`payments.${c.id}: unknown kind "${c.kind}" (one of ${Object.keys(KINDS).join(', ')})`);
    providers.set(c.id, make(c));
  }
  // Manual payment stays available (admin confirmation) unless the operator configured it themselves.
  if (![...providers.values()].some((p) => p.kind === 'manual'))
    providers.set('manual', createManual({ id: 'manual', kind: 'manual' }));
  return providers;
}

export function createPayments(
  settings: PaymentSettings,
  env: NodeJS.ProcessEnv = process.env,
  configs?: InstanceConfig[],
): Payments {
  const providers = buildProviders(configs ?? readPaymentsFile(settings.paymentsFile, env));
  const online = [...providers.values()].filter((p) => p.kind !== 'manual');
  if (online.length > 0 && !settings.publicBaseUrl) {
    throw new Error(
      `PUBLIC_BASE_URL must be set for online payments (${online.map((p) => p.id).join(', ')}): providers send their notifications there`,
    );
  }
  const base = settings.publicBaseUrl ?? '';
  return {
    settings,
    providers,
    defaultInstance: [...providers.keys()][0],
    notifyUrl: (instance) => `${base}/pay/notify/${instance}`,
    returnUrl: (orderId) => `${base}/console/billing/orders/${orderId}`,
    onOrderCredited: [],
  };
}
