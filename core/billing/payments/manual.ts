// The manual provider: the buyer pays outside Tollgate (bank transfer, WeChat ID, cash) following the
// operator's instructions, and an admin confirms. It never receives notifications and has nothing to query.
import { type PaymentProvider, SignatureError } from '../payment-provider.js';
import { cnyAmount, type InstanceConfig, label } from './config.js';

const DEFAULT_INSTRUCTIONS = {
  zh: '订单 {order} 待支付：请按约定方式付款并注明订单号，管理员确认后立即到账。',
  en: 'Order {order} is waiting for payment. Pay the operator as agreed and quote the order number; an administrator confirms it and the purchase is credited at once.',
};

export function createManual(c: InstanceConfig): PaymentProvider {
  const given = c.instructions as { zh?: unknown; en?: unknown } | undefined;
  const instructions = {
    zh: typeof given?.zh === 'string' && given.zh.trim() ? given.zh : DEFAULT_INSTRUCTIONS.zh,
    en: typeof given?.en === 'string' && given.en.trim() ? given.en : DEFAULT_INSTRUCTIONS.en,
  };
  return {
    id: c.id,
    kind: 'manual',
    methods: ['manual'],
    currency: 'CNY',
    label: label(c, { zh: '人工转账', en: 'Manual payment' }),
    amountFor: cnyAmount,
    async createPayment(s) {
      const fill = (t: string): string =>
        t.replaceAll('{order}', String(s.orderId)).replaceAll('{amount}', (s.amountMinor / 100).toFixed(2));
      return {
        action: { type: 'none', instructions: { zh: fill(instructions.zh), en: fill(instructions.en) } },
        providerRef: null,
      };
    },
    verifyNotification() {
      throw new SignatureError('manual payments have no notifications; an administrator confirms them');
    },
    ack: (ok) => ({ status: ok ? 200 : 400, contentType: 'text/plain; charset=utf-8', body: ok ? 'ok' : 'fail' }),
    async queryPayment() {
      return { state: 'unknown', detail: 'manual payments are confirmed by an administrator' };
    },
  };
}
