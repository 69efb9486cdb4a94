// WeChat Pay API v3, Native (QR) on node:crypto: requests signed SHA256withRSA with the merchant key,
// responses and notifications verified with the WeChat Pay public key (PUB_KEY_ID_…, the only mode for
// merchants since about Oct 2024) or a platform certificate, over the raw body and a 300 s timestamp window;
// notification resources decrypted with AES-256-GCM under the APIv3 key.
import { createDecipheriv, type KeyObject, randomBytes } from 'node:crypto';
import {
  type NotifyRequest,
  type OrderRow,
  outTradeNoOf,
  type PaymentProvider,
  type PaymentResult,
  SignatureError,
} from '../payment-provider.js';
import { cnyAmount, type InstanceConfig, label, optionalString, requireString } from './config.js';
import { type HttpAnswer, httpRequest, jsonOf } from './http-json.js';
import { privateKeyOf, publicKeyOf, rsaSign, rsaVerify } from './rsa-sign.js';

const WINDOW_S = 300;

/** Checks Wechatpay-* headers against the raw body: the right key serial, a fresh timestamp, a valid signature. */
export function verifyWechatSignature(
  headers: Record<string, string | undefined>,
  body: string,
  keys: { serial: string; key: KeyObject },
  nowMs = Date.now(),
): void {
  const ts = headers['wechatpay-timestamp'] ?? '';
  const nonce = headers['wechatpay-nonce'] ?? '';
  const sig = headers['wechatpay-signature'] ?? '';
  if (headers['wechatpay-serial'] !== keys.serial)
    throw new SignatureError(
      `WeChat Pay key serial ${String(headers['wechatpay-serial']).slice(0, 48)} is not the configured one`,
    );
  if (!/^\d{1,12}$/.test(ts) || Math.abs(nowMs / 1000 - Number(ts)) > WINDOW_S)
    throw new SignatureError('WeChat Pay timestamp outside the 300 s window');
  if (!rsaVerify(`${ts}\n${nonce}\n${body}\n`, sig, keys.key))
    throw new SignatureError('WeChat Pay signature does not verify');
}

export function decryptResource(
  r: { ciphertext: string; nonce: string; associated_data?: string },
  apiV3Key: string,
): string {
  const data = Buffer.from(r.ciphertext, 'base64');
  if (data.length < 17) throw new SignatureError('WeChat Pay resource too short');
  const decipher = createDecipheriv('aes-256-gcm', Buffer.from(apiV3Key, 'utf8'), Buffer.from(r.nonce, 'utf8'));
  decipher.setAuthTag(data.subarray(data.length - 16));
  decipher.setAAD(Buffer.from(r.associated_data ?? '', 'utf8'));
  try {
    return Buffer.concat([decipher.update(data.subarray(0, data.length - 16)), decipher.final()]).toString('utf8');
  } catch {
    throw new SignatureError('WeChat Pay resource does not decrypt with the APIv3 key');
  }
}

interface Transaction {
  mchid?: string;
  appid?: string;
  out_trade_no?: string;
  transaction_id?: string;
  trade_state?: string;
  amount?: { total?: number; payer_total?: number; currency?: string };
}

function stateOf(tradeState: string | undefined): PaymentResult['state'] {
  switch (tradeState) {
    case 'SUCCESS':
      return 'paid';
    case 'NOTPAY':
    case 'USERPAYING':
      return 'pending';
    case 'CLOSED':
    case 'PAYERROR':
    case 'REVOKED':
      return 'closed';
    case 'REFUND':
      return 'refunded';
    default:
      return 'unknown';
  }
}

export function createWxpay(c: InstanceConfig): PaymentProvider {
  const mchid = requireString(c, 'mchid');
  const appid = requireString(c, 'appid');
  const serialNo = requireString(c, 'serial_no');
  const merchantKey = privateKeyOf(requireString(c, 'private_key'), `payments.${c.id}.private_key`);
  const apiV3Key = requireString(c, 'apiv3_key');
  if (Buffer.byteLength(apiV3Key) !== 32)
    throw new Error(`payments.${c.id}.apiv3_key must be the 32-character APIv3 key`);
  const platform = {
    serial: requireString(c, 'platform_serial'),
    key: publicKeyOf(requireString(c, 'platform_public_key'), `payments.${c.id}.platform_public_key`),
  };
  const base = (optionalString(c, 'base_url') ?? 'https://api.mch.weixin.qq.com').replace(/\/+$/, '');

  const request = async (method: 'GET' | 'POST', path: string, body?: unknown): Promise<HttpAnswer> => {
    const text = body === undefined ? '' : JSON.stringify(body);
    const ts = String(Math.floor(Date.now() / 1000));
    const nonce = randomBytes(16).toString('hex');
    const signature = rsaSign(`${method}\n${path}\n${ts}\n${nonce}\n${text}\n`, merchantKey);
    const answer = await httpRequest(base + path, {
      method,
      body: body === undefined ? undefined : text,
      headers: {
        accept: 'application/json',
        'content-type': 'application/json',
        authorization: `WECHATPAY2-SHA256-RSA2048 mchid="${mchid}",nonce_str="${nonce}",signature="${signature}",timestamp="${ts}",serial_no="${serialNo}"`,
      },
    });
    if (answer.status >= 200 && answer.status < 300 && answer.text !== '') {
      verifyWechatSignature(answer.headers, answer.text, platform);
    }
    return answer;
  };

  return {
    id: c.id,
    kind: 'wxpay',
    methods: ['native'],
    currency: 'CNY',
    label: label(c, { zh: '微信支付', en: 'WeChat Pay' }),
    amountFor: cnyAmount,
    async createPayment(s, urls) {
      const answer = await request('POST', '/v3/pay/transactions/native', {
        appid,
        mchid,
        description: s.subject.slice(0, 127),
        out_trade_no: s.outTradeNo,
        time_expire: new Date(s.expiresAt).toISOString().replace(/\.\d{3}Z$/, '+00:00'),
        notify_url: urls.notifyUrl,
        amount: { total: s.amountMinor, currency: 'CNY' },
      });
      const body = jsonOf(answer);
      if (answer.status !== 200 || typeof body.code_url !== 'string')
        throw new Error(`native order refused: ${String(body.code ?? answer.status)}`);
      return { action: { type: 'qrcode', text: body.code_url }, providerRef: null };
    },
    verifyNotification(req: NotifyRequest): PaymentResult {
      const raw = req.rawBody.toString('utf8');
      verifyWechatSignature(req.headers, raw, platform);
      let note: {
        id?: string;
        event_type?: string;
        resource?: { ciphertext: string; nonce: string; associated_data?: string };
      };
      try {
        note = JSON.parse(raw) as typeof note;
      } catch {
        throw new SignatureError('WeChat Pay notification is not JSON');
      }
      if (!note.resource) throw new SignatureError('WeChat Pay notification has no resource');
      const tx = JSON.parse(decryptResource(note.resource, apiV3Key)) as Transaction;
      if (note.event_type?.startsWith('REFUND.')) return { state: 'refunded', eventId: note.id };
      if (tx.mchid !== mchid || tx.appid !== appid)
        throw new SignatureError('WeChat Pay notification for another merchant or app');
      return {
        state: stateOf(tx.trade_state),
        outTradeNo: tx.out_trade_no,
        providerTradeNo: tx.transaction_id,
        amountMinor: tx.amount?.total ?? -1,
        currency: tx.amount?.currency ?? 'CNY',
        eventId: note.id,
      };
    },
    ack: (ok) =>
      ok
        ? { status: 204, contentType: 'text/plain', body: '' }
        : {
            status: 400,
            contentType: 'application/json',
            body: JSON.stringify({ code: 'FAIL', message: 'not accepted' }),
          },
    async queryPayment(order: OrderRow): Promise<PaymentResult> {
      try {
        const answer = await request(
          'GET',
          `/v3/pay/transactions/out-trade-no/${outTradeNoOf(Number(order.id))}?mchid=${mchid}`,
        );
        const tx = jsonOf(answer) as Transaction & { code?: string };
        if (answer.status !== 200)
          return { state: 'unknown', detail: `WeChat Pay query HTTP ${answer.status} ${tx.code ?? ''}` };
        if (tx.mchid !== mchid) return { state: 'unknown', detail: 'WeChat Pay query answered for another merchant' };
        return {
          state: stateOf(tx.trade_state),
          outTradeNo: tx.out_trade_no,
          providerTradeNo: tx.transaction_id,
          amountMinor: tx.amount?.total ?? -1,
          currency: tx.amount?.currency ?? 'CNY',
        };
      } catch (err) {
        return { state: 'unknown', detail: `WeChat Pay query failed: ${(err as Error).message.slice(0, 120)}` };
      }
    },
    async closePayment(order: OrderRow): Promise<void> {
      const answer = await request(
        'POST',
        `/v3/pay/transactions/out-trade-no/${outTradeNoOf(Number(order.id))}/close`,
        { mchid },
      );
      if (answer.status !== 204 && answer.status !== 200) throw new Error(`WeChat Pay close HTTP ${answer.status}`);
    },
    async refund(order: OrderRow, amountMinor: number, refundNo: string): Promise<void> {
      const answer = await request('POST', '/v3/refund/domestic/refunds', {
        out_trade_no: outTradeNoOf(Number(order.id)),
        out_refund_no: refundNo,
        amount: { refund: amountMinor, total: Number(order.amount_minor), currency: 'CNY' },
      });
      if (answer.status !== 200)
        throw new Error(`WeChat Pay refund HTTP ${answer.status}: ${answer.text.slice(0, 100)}`);
    },
  };
}
