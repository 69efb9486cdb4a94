// 彩虹易支付 (EPay) V1: the buyer is sent to submit.php with the signed fields, MD5-signed notifies (GET query, some gateways POST a form),
// order query through api.php. No close call exists, so the sweeper keeps querying after expiry.
import { createHash, timingSafeEqual } from 'node:crypto';
import {
  type CreatedPayment,
  type NotifyRequest,
  type OrderRow,
  outTradeNoOf,
  type PaymentProvider,
  type PaymentResult,
  type PaymentSnapshot,
  type PaymentUrls,
  SignatureError,
} from '../payment-provider.js';
import type { InstanceConfig } from './config.js';
import { cnyAmount, label, requireString } from './config.js';
import { fenOf, httpRequest, jsonOf, yuan } from './http-json.js';

/** drop sign, sign_type and empty values; sort by ASCII; k=v&... with raw values; append the key; MD5 hex. */
export function epaySign(fields: Record<string, string>, key: string): string {
  const text = Object.keys(fields)
    .filter((k) => k !== 'sign' && k !== 'sign_type' && fields[k] !== '' && fields[k] !== undefined)
    .sort()
    .map((k) => `${k}=${fields[k]}`)
    .join('&');
  return createHash('md5')
    .update(text + key, 'utf8')
    .digest('hex');
}

function sameHex(a: string, b: string): boolean {
  const x = Buffer.from(a.toLowerCase());
  const y = Buffer.from(b.toLowerCase());
  return x.length === y.length && timingSafeEqual(x, y);
}

const TYPES = ['alipay', 'wxpay', 'qqpay'] as const;

export function createEpay(c: InstanceConfig): PaymentProvider {
  const pid = requireString(c, 'pid');
  const key = requireString(c, 'key');
  const gateway = requireString(c, 'gateway').replace(/\/+$/, '');
  if (!/^https?:\/\//.test(gateway)) throw new Error(`payments.${c.id}.gateway must be an http(s) URL`);
  const methods = Array.isArray(c.methods) ? (c.methods as string[]) : [...TYPES];
  for (const m of methods)
    if (!(TYPES as readonly string[]).includes(m))
      throw new Error(`payments.${c.id}.methods: unknown EPay type "${m}"`);
  /** Some "免签" gateways shift amounts by a few fen to tell payers apart; 0 unless the operator allows it. */
  const toleranceFen = typeof c.amount_tolerance_fen === 'number' ? c.amount_tolerance_fen : 0;

  const parse = (fields: Record<string, string>): PaymentResult => {
    if (!fields.sign || !sameHex(fields.sign, epaySign(fields, key)))
      throw new SignatureError('EPay signature does not match');
    if (fields.pid !== pid)
      throw new SignatureError(`EPay notify for merchant ${String(fields.pid).slice(0, 20)}, not ${pid}`);
    const state = fields.trade_status === 'TRADE_SUCCESS' ? 'paid' : 'pending';
    return {
      state,
      outTradeNo: fields.out_trade_no,
      providerTradeNo: fields.trade_no,
      amountMinor: fenOf(fields.money) ?? -1,
      currency: 'CNY',
      eventId: fields.trade_no ? `${fields.trade_no}:${fields.trade_status}` : undefined,
    };
  };

  return {
    id: c.id,
    kind: 'epay',
    methods,
    currency: 'CNY',
    label: label(c, { zh: '在线支付', en: 'Online payment' }),
    amountToleranceMinor: toleranceFen,
    amountFor: cnyAmount,
    async createPayment(s: PaymentSnapshot, urls: PaymentUrls): Promise<CreatedPayment> {
      const fields: Record<string, string> = {
        pid,
        type: s.method ?? methods[0],
        out_trade_no: s.outTradeNo,
        notify_url: urls.notifyUrl,
        return_url: urls.returnUrl,
        name: s.subject,
        money: yuan(s.amountMinor),
      };
      fields.sign = epaySign(fields, key);
      fields.sign_type = 'MD5';
      // The GET pay link of the EPay SDK (getPayLink) rather than its auto-submit form: the console's CSP keeps
      // form-action 'self', and nothing here is secret (the key never leaves; sign is a digest).
      return {
        action: { type: 'redirect', url: `${gateway}/submit.php?${new URLSearchParams(fields).toString()}` },
        providerRef: null,
      };
    },
    verifyNotification(req: NotifyRequest): PaymentResult {
      // GET query or POST form: verify over exactly the fields received.
      const fields =
        req.method === 'POST' && req.rawBody.length > 0
          ? Object.fromEntries(new URLSearchParams(req.rawBody.toString('utf8')))
          : req.query;
      return parse(fields);
    },
    ack: (ok) => ({ status: 200, contentType: 'text/plain; charset=utf-8', body: ok ? 'success' : 'fail' }),
    async queryPayment(order: OrderRow): Promise<PaymentResult> {
      // The key travels in the query string (the protocol's choice): never log this URL.
      const url = `${gateway}/api.php?act=order&pid=${encodeURIComponent(pid)}&key=${encodeURIComponent(key)}&out_trade_no=${outTradeNoOf(Number(order.id))}`;
      try {
        const body = jsonOf(await httpRequest(url));
        if (Number(body.code) !== 1)
          return {
            state: 'unknown',
            detail: `EPay query code ${String(body.code)}: ${String(body.msg ?? '').slice(0, 80)}`,
          };
        const paid = Number(body.status) === 1;
        return {
          state: paid ? 'paid' : 'pending',
          outTradeNo: String(body.out_trade_no ?? outTradeNoOf(Number(order.id))),
          providerTradeNo: body.trade_no === undefined ? undefined : String(body.trade_no),
          amountMinor: fenOf(body.money) ?? -1,
          currency: 'CNY',
        };
      } catch (err) {
        return { state: 'unknown', detail: `EPay query failed: ${(err as Error).message.replaceAll(key, '***')}` };
      }
    },
    async refund(order: OrderRow, amountMinor: number): Promise<void> {
      const form = new URLSearchParams({
        pid,
        key,
        out_trade_no: outTradeNoOf(Number(order.id)),
        money: yuan(amountMinor),
      });
      const body = jsonOf(
        await httpRequest(`${gateway}/api.php?act=refund`, {
          method: 'POST',
          body: form.toString(),
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        }),
      );
      if (Number(body.code) !== 1) throw new Error(`EPay refund refused: ${String(body.msg ?? '').slice(0, 100)}`);
    },
  };
}
