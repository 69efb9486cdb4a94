// The manual provider: the buyer pays outside Tollgate (bank transfer, WeChat ID, cash) following the
// operator's instructions, and an admin confirms. It never receives notifications and has nothing to query.
import { type PaymentProvider, SignatureError } from '../payment-provider.js';
import { cnyAmount, type InstanceConfig, label } from './config.js';

/** Used when neither the instance nor operations.yaml (`manual_payment.instructions`) says how to pay. */
const DEFAULT_INSTRUCTIONS = {
  zh: '订单 {order} 待支付 ¥{amount}：请按与服务方约定的方式付款，并注明订单号 {order}。管理员确认收款后立即到账；订单在确认或取消前一直有效。',
  en: 'Order {order} is waiting for payment of ¥{amount}. Pay the operator as agreed and quote order number {order}; an administrator confirms it and the purchase is credited at once. The order stays open until it is confirmed or cancelled.',
};

/**
 * The shipped operations.yaml's instructions begin with this mark until the operator writes their own: a template
 * ("pay ¥10 to <payee> via <WeChat / Alipay / bank account>") that tells a buyer nothing they can do. Such a text
 * is not shown to buyers; they get the built-in wording above, which they can act on.
 */
export const UNFINISHED_MARK = {
  zh: '【收款信息待运营方填写】',
  en: '[Payment details to be filled in by the operator]',
};

function finished(v: string | undefined, lang: 'zh' | 'en'): string | null {
  return v?.trim() && !v.includes(UNFINISHED_MARK[lang]) ? v : null;
}

export function createManual(c: InstanceConfig): PaymentProvider {
  const given = c.instructions as { zh?: unknown; en?: unknown } | undefined;
  const own = (lang: 'zh' | 'en'): string | null => {
    const v = given?.[lang];
    return typeof v === 'string' && v.trim() ? v : null;
  };
  return {
    id: c.id,
    kind: 'manual',
    methods: ['manual'],
    currency: 'CNY',
    label: label(c, { zh: '人工转账', en: 'Manual payment' }),
    amountFor: cnyAmount,
    async createPayment(s) {
      // The instance's own words, else operations.yaml's (read per order: they reload live) once the operator
      // has written them, else the default.
      const text = (lang: 'zh' | 'en'): string =>
        (own(lang) ?? finished(s.instructions?.[lang], lang) ?? DEFAULT_INSTRUCTIONS[lang])
          .replaceAll('{order}', String(s.orderId))
          .replaceAll('{amount}', (s.amountMinor / 100).toFixed(2));
      return {
        action: { type: 'none', instructions: { zh: text('zh'), en: text('en') } },
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
