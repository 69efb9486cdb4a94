// Kdniao (快递鸟) instant query, RequestType 1002 (free tier) or 8001 (adds StateEx/Location).
// Protocol: kuaid.md §3.3. The form values are url-encoded exactly once, like the official demos do.
import type { Host } from '../../../core/sandbox/contract.js';
import { base64 } from '../base64.js';
import { formBody } from '../form.js';
import { mapKdniao } from '../states.js';
import { beijingIso } from '../time.js';
import { brief, fetchText, isRecord, parseJson, text } from './http.js';
import type { Provider, ProviderResult, Trace, TrackQuery } from './types.js';

export const KDNIAO_URL = 'https://api.kdniao.com/Ebusiness/EbusinessOrderHandle.aspx';

export interface KdniaoCredentials {
  businessId: string;
  apiKey: string;
  requestType: '1002' | '8001';
}

/** DataSign before form encoding: base64 of the lower-case hex MD5 *string* of RequestData + ApiKey. */
export function kdniaoSign(requestData: string, apiKey: string, host: Host): string {
  return base64(host.digest('md5', requestData + apiKey, 'hex').toLowerCase());
}

// Kdniao puts every failure in free text (`Reason`). These words mark trouble on Kdniao's side or with our
// account (sign, id, package, quota, rate, server, unsupported courier): worth the next provider.
const PROVIDER_TROUBLE =
  /签名|DataSign|EBusinessID|商户|用户|套餐|权限|余额|过期|次数|频繁|超限|上限|系统|服务器|繁忙|维护|RequestType|未开通|授权|认证|不支持|暂不支持|异常/i;
// ... except a courier Kdniao does not carry at all: another provider may.
const COURIER_UNSUPPORTED = /不支持(此|该)?(快递|物流)?公司|暂不支持(此|该)(快递|物流)/;
// ... and these mean the carrier rejected the phone tail (CustomerName).
const PHONE_WRONG = /(手机|电话).{0,8}(错误|不正确|不匹配|有误)|验证码错误|后四位.{0,6}(错误|不正确|不匹配|有误)/;

function traceOf(item: unknown): Trace | null {
  if (!isRecord(item)) return null;
  const context = text(item.AcceptStation);
  if (!context) return null;
  return { time: beijingIso(item.AcceptTime), context, location: text(item.Location) };
}

/** Parse a Kdniao instant-query body. Exported for tests of the shape handling. */
export function readKdniaoAnswer(body: string): ProviderResult {
  const json = parseJson(body);
  if (!isRecord(json))
    return { kind: 'failed', detail: `kdniao answered something that is not JSON: ${brief(body, 60)}` };
  const success = json.Success === true || json.Success === 'true';
  const reason = brief(json.Reason);
  if (!success) {
    const detail = `kdniao Success:false${reason ? ` ${reason}` : ''}`;
    if (json.Success !== false && json.Success !== 'false')
      return { kind: 'failed', detail: 'kdniao answered an unexpected shape' };
    if (PHONE_WRONG.test(reason)) return { kind: 'bad_phone', detail };
    if (COURIER_UNSUPPORTED.test(reason)) return { kind: 'unsupported', detail };
    if (PROVIDER_TROUBLE.test(reason)) return { kind: 'failed', detail };
    return { kind: 'no_record', detail };
  }
  const raw = Array.isArray(json.Traces) ? json.Traces : [];
  // Kdniao lists traces oldest first; we answer newest first.
  const traces = raw
    .map(traceOf)
    .filter((t): t is Trace => t !== null)
    .reverse();
  if (traces.length === 0)
    return { kind: 'no_record', detail: `kdniao returned an empty trail${reason ? ` (${reason})` : ''}` };
  return { kind: 'found', track: { ...mapKdniao(json.State, json.StateEx), traces } };
}

export function kdniaoProvider(creds: KdniaoCredentials, timeoutMs: number): Provider {
  return {
    id: 'kdniao',
    supports: (courier) => courier.kdniao !== null,
    async query(q: TrackQuery, host: Host): Promise<ProviderResult> {
      // CustomerName carries the phone's last 4 digits (SF and co.); JD wants a merchant code we do not have.
      const customerName = q.phone && q.courier.code !== 'jd' ? q.phone.slice(-4) : '';
      const requestData = JSON.stringify({
        OrderCode: '',
        ShipperCode: q.courier.kdniao ?? '',
        LogisticCode: q.no,
        CustomerName: customerName,
      });
      const got = await fetchText(host, 'kdniao', KDNIAO_URL, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded;charset=utf-8', accept: 'application/json' },
        body: formBody([
          ['RequestData', requestData],
          ['EBusinessID', creds.businessId],
          ['RequestType', creds.requestType],
          ['DataSign', kdniaoSign(requestData, creds.apiKey, host)],
          ['DataType', '2'],
        ]),
        timeout_ms: timeoutMs,
      });
      return got.ok ? readKdniaoAnswer(got.body) : got.result;
    },
  };
}
