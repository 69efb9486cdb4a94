// Alipay open platform with RSA2 written on node:crypto (about 80 lines instead of alipay-sdk's 61 packages):
// 电脑网站支付 (alipay.trade.page.pay, a signed redirect) and 当面付 (alipay.trade.precreate, a QR code).
// Responses are verified over the exact inner JSON text; notifies over the decoded form fields.
import {
  type NotifyRequest,
  type OrderRow,
  outTradeNoOf,
  type PaymentProvider,
  type PaymentResult,
  SignatureError,
} from '../payment-provider.js';
import { cnyAmount, type InstanceConfig, label, optionalString, requireString } from './config.js';
import { fenOf, httpRequest, yuan } from './http-json.js';
import { privateKeyOf, publicKeyOf, rsaSign, rsaVerify, sortedPairs } from './rsa-sign.js';

/** "2026-11-23 12:00:00" in China time, as Alipay wants its timestamps. */
function chinaTime(ms: number): string {
  return new Date(ms + 8 * 3600_000).toISOString().slice(0, 19).replace('T', ' ');
}

/** The raw text of `"<key>": {...}` in a response, found by brace matching (re-serialising would break the signature). */
export function rawObjectAfter(text: string, key: string): string | null {
  const at = text.indexOf(`"${key}"`);
  if (at < 0) return null;
  const start = text.indexOf('{', at + key.length + 2);
  if (start < 0) return null;
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === '{') depth++;
    else if (ch === '}' && --depth === 0) return text.slice(start, i + 1);
  }
  return null;
}

const PAID = new Set(['TRADE_SUCCESS', 'TRADE_FINISHED']);
const FORM = { 'content-type': 'application/x-www-form-urlencoded;charset=utf-8' };

export function createAlipay(c: InstanceConfig): PaymentProvider {
  const appId = requireString(c, 'app_id');
  const appKey = privateKeyOf(requireString(c, 'private_key'), `payments.${c.id}.private_key`);
  const alipayKey = publicKeyOf(requireString(c, 'alipay_public_key'), `payments.${c.id}.alipay_public_key`);
  const gateway = optionalString(c, 'gateway') ?? 'https://openapi.alipay.com/gateway.do';
  const sellerId = optionalString(c, 'seller_id');
  const methods = Array.isArray(c.methods) ? (c.methods as string[]) : ['page', 'qr'];
  for (const m of methods)
    if (m !== 'page' && m !== 'qr') throw new Error(`payments.${c.id}.methods: "${m}" is not page or qr`);

  const signed = (
    method: string,
    biz: Record<string, string>,
    extra: Record<string, string> = {},
  ): Record<string, string> => {
    const params: Record<string, string> = {
      app_id: appId,
      method,
      charset: 'utf-8',
      sign_type: 'RSA2',
      timestamp: chinaTime(Date.now()),
      version: '1.0',
      biz_content: JSON.stringify(biz),
      ...extra,
    };
    params.sign = rsaSign(sortedPairs(params, ['sign']), appKey);
    return params;
  };

  /** One server call; the `<method>_response` object, verified, or an error. */
  const call = async (
    method: string,
    biz: Record<string, string>,
    extra: Record<string, string> = {},
  ): Promise<Record<string, string>> => {
    const answer = await httpRequest(gateway, {
      method: 'POST',
      body: new URLSearchParams(signed(method, biz, extra)).toString(),
      headers: FORM,
    });
    const key = `${method.replaceAll('.', '_')}_response`;
    const inner = rawObjectAfter(answer.text, key);
    if (inner === null) throw new Error(`HTTP ${answer.status}: no ${key} in the answer`);
    const sign = (JSON.parse(answer.text) as { sign?: string }).sign;
    const body = JSON.parse(inner) as Record<string, string>;
    // Error answers may come unsigned; a success must be signed by Alipay.
    if (body.code === '10000' && (!sign || !rsaVerify(inner, sign, alipayKey)))
      throw new Error(`${key} signature does not verify`);
    return body;
  };

  const stateOf = (status: string | undefined, refunded: boolean): PaymentResult['state'] => {
    if (refunded) return 'refunded';
    if (status && PAID.has(status)) return 'paid';
    if (status === 'TRADE_CLOSED') return 'closed';
    return 'pending';
  };

  return {
    id: c.id,
    kind: 'alipay',
    methods,
    currency: 'CNY',
    label: label(c, { zh: '支付宝', en: 'Alipay' }),
    amountFor: cnyAmount,
    async createPayment(s, urls) {
      const minutes = Math.max(1, Math.round((s.expiresAt - Date.now()) / 60_000));
      const biz = {
        out_trade_no: s.outTradeNo,
        total_amount: yuan(s.amountMinor),
        subject: s.subject,
        timeout_express: `${minutes}m`,
      };
      if (s.method === 'qr') {
        const r = await call('alipay.trade.precreate', biz, { notify_url: urls.notifyUrl });
        if (r.code !== '10000' || !r.qr_code)
          throw new Error(`precreate refused: ${r.sub_code ?? r.code} ${r.sub_msg ?? r.msg ?? ''}`);
        return { action: { type: 'qrcode', text: r.qr_code }, providerRef: null };
      }
      const params = signed(
        'alipay.trade.page.pay',
        { ...biz, product_code: 'FAST_INSTANT_TRADE_PAY' },
        { notify_url: urls.notifyUrl, return_url: urls.returnUrl },
      );
      return {
        action: { type: 'redirect', url: `${gateway}?${new URLSearchParams(params).toString()}` },
        providerRef: null,
      };
    },
    verifyNotification(req: NotifyRequest): PaymentResult {
      // URLSearchParams decodes each value once (alipay-sdk's checkNotifySign decoded twice and threw on "%").
      const fields = Object.fromEntries(new URLSearchParams(req.rawBody.toString('utf8')));
      if (!fields.sign || !rsaVerify(sortedPairs(fields, ['sign', 'sign_type']), fields.sign, alipayKey))
        throw new SignatureError('Alipay signature does not verify');
      if (fields.app_id !== appId)
        throw new SignatureError(`Alipay notify for app ${String(fields.app_id).slice(0, 32)}`);
      if (sellerId && fields.seller_id !== sellerId) throw new SignatureError('Alipay notify for another seller');
      const refunded = fields.refund_fee !== undefined || fields.gmt_refund !== undefined;
      return {
        state: stateOf(fields.trade_status, refunded),
        outTradeNo: fields.out_trade_no,
        providerTradeNo: fields.trade_no,
        amountMinor: fenOf(fields.total_amount) ?? -1,
        currency: 'CNY',
        eventId: fields.notify_id,
      };
    },
    ack: (ok) => ({ status: 200, contentType: 'text/plain; charset=utf-8', body: ok ? 'success' : 'fail' }),
    async queryPayment(order: OrderRow): Promise<PaymentResult> {
      try {
        const r = await call('alipay.trade.query', { out_trade_no: outTradeNoOf(Number(order.id)) });
        // An unscanned precreate QR is unknown to Alipay: that means nothing yet (Luncher/alipay#14).
        if (r.code !== '10000') return { state: 'unknown', detail: `Alipay query ${r.sub_code ?? r.code}` };
        return {
          state: stateOf(r.trade_status, false),
          outTradeNo: r.out_trade_no,
          providerTradeNo: r.trade_no,
          amountMinor: fenOf(r.total_amount) ?? -1,
          currency: 'CNY',
        };
      } catch (err) {
        return { state: 'unknown', detail: `Alipay query failed: ${(err as Error).message.slice(0, 120)}` };
      }
    },
    async closePayment(order: OrderRow): Promise<void> {
      const r = await call('alipay.trade.close', { out_trade_no: outTradeNoOf(Number(order.id)) });
      // Nothing to close when the buyer never scanned: fine.
      if (r.code !== '10000' && r.sub_code !== 'ACQ.TRADE_NOT_EXIST')
        throw new Error(`Alipay close refused: ${r.sub_code ?? r.code}`);
    },
    async refund(order: OrderRow, amountMinor: number, refundNo: string): Promise<void> {
      const r = await call('alipay.trade.refund', {
        out_trade_no: outTradeNoOf(Number(order.id)),
        refund_amount: yuan(amountMinor),
        out_request_no: refundNo,
      });
      if (r.code !== '10000') throw new Error(`Alipay refund refused: ${r.sub_code ?? r.code} ${r.sub_msg ?? ''}`);
    },
  };
}
