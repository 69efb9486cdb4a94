// Kuaidi100 enterprise real-time query (poll/query.do) and its auto-number API. Protocol: kuaid.md §3.1-3.2.
// Errors come back as HTTP 200 with {result:false, returnCode}, so the body decides, not the status.
import type { Host } from '../../../core/sandbox/contract.js';
import { type Courier, findCourier, unknownCourier } from '../couriers.js';
import { formBody, queryString } from '../form.js';
import { autonumberMemo, numberPrefixKey } from '../memo.js';
import { mapKuaidi100 } from '../states.js';
import { beijingIso } from '../time.js';
import { brief, fetchText, isRecord, parseJson, text } from './http.js';
import type { Provider, ProviderResult, Trace, TrackQuery } from './types.js';

export const KUAIDI100_QUERY_URL = 'https://poll.kuaidi100.com/poll/query.do';
// The SDK uses plain http; https keeps the key off the wire and the same host answers it.
export const KUAIDI100_AUTONUMBER_URL = 'https://www.kuaidi100.com/autonumber/auto';

export interface Kuaidi100Credentials {
  customer: string;
  key: string;
}

/** returnCode -> what it means for failover. 500 is "no result yet"; 408 is the carrier's phone check. */
function classifyError(code: string, message: string): ProviderResult {
  const detail = `kuaidi100 returnCode ${code || '?'}${message ? ` ${message}` : ''}`;
  if (code === '408' || /验证码错误/.test(message)) return { kind: 'bad_phone', detail };
  if (code === '500') return { kind: 'no_record', detail };
  // 400 also covers our own trouble (找不到对应公司: wrong customer, form, quota); only this text is about the courier.
  if (code === '400' && /不支持(此|该)?快递公司/.test(message)) return { kind: 'unsupported', detail };
  // 400 (customer/quota/form), 501-503 (server, busy, sign), 601 (key expired): another provider may do.
  return { kind: 'failed', detail };
}

function traceOf(item: unknown): Trace | null {
  if (!isRecord(item)) return null;
  const context = text(item.context);
  if (!context) return null;
  return {
    time: beijingIso(item.ftime) ?? beijingIso(item.time),
    context,
    location: text(item.location) ?? text(item.areaName),
  };
}

/** Parse a poll/query.do body. Exported for tests of the shape handling. */
export function readQueryAnswer(body: string): ProviderResult {
  const json = parseJson(body);
  if (!isRecord(json))
    return { kind: 'failed', detail: `kuaidi100 answered something that is not JSON: ${brief(body, 60)}` };
  const message = brief(json.message);
  if (json.result === false || json.returnCode !== undefined)
    return classifyError(String(json.returnCode ?? ''), message);
  if (String(json.status) !== '200' || !Array.isArray(json.data)) {
    return { kind: 'failed', detail: `kuaidi100 answered an unexpected shape (status ${brief(json.status, 20)})` };
  }
  const traces = json.data.map(traceOf).filter((t): t is Trace => t !== null);
  if (traces.length === 0) return { kind: 'no_record', detail: 'kuaidi100 returned an empty trail' };
  const newest = json.data[0];
  const mapped = mapKuaidi100(json.state, isRecord(newest) ? newest.statusCode : undefined);
  // ischeck "1" is Kuaidi100's own "signed" flag: trust it over a state code we could not read.
  if (mapped.state === 'UNKNOWN' && String(json.ischeck) === '1') mapped.state = 'SIGNED';
  return { kind: 'found', track: { ...mapped, traces } };
}

export function kuaidi100Provider(creds: Kuaidi100Credentials, timeoutMs: number): Provider {
  return {
    id: 'kuaidi100',
    // Kuaidi100 takes any of its own codes, including ones our table does not list.
    supports: () => true,
    async query(q: TrackQuery, host: Host): Promise<ProviderResult> {
      // Key order is fixed so the signed string is reproducible; the sign covers exactly this text.
      const param = JSON.stringify({
        com: q.courier.code,
        num: q.no,
        ...(q.phone ? { phone: q.phone } : {}),
        resultv2: '4',
        show: '0',
        order: 'desc',
      });
      const sign = host.digest('md5', param + creds.key + creds.customer, 'hex').toUpperCase();
      const got = await fetchText(host, 'kuaidi100', KUAIDI100_QUERY_URL, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: formBody([
          ['customer', creds.customer],
          ['sign', sign],
          ['param', param],
        ]),
        timeout_ms: timeoutMs,
      });
      return got.ok ? readQueryAnswer(got.body) : got.result;
    },
  };
}

/**
 * Kuaidi100 auto-number: couriers that fit the number, most likely first. A second opinion only: any
 * failure (no package, key expired, timeout, odd shape) gives an empty list and the rules stand alone.
 */
export async function kuaidi100Autonumber(no: string, key: string, host: Host, timeoutMs: number): Promise<Courier[]> {
  // Kuaidi100 ranks by number prefix, so one answer serves every number sharing length and first 4 characters.
  const cacheKey = numberPrefixKey(no);
  const cached = autonumberMemo.get(cacheKey, host.now());
  if (cached) return cached.map(toCourier);
  const got = await fetchText(
    host,
    'kuaidi100 autonumber',
    `${KUAIDI100_AUTONUMBER_URL}?${queryString([
      ['num', no],
      ['key', key],
    ])}`,
    {
      method: 'GET',
      headers: { accept: 'application/json' },
      timeout_ms: timeoutMs,
    },
  );
  if (!got.ok) {
    host.log('warn', 'kuaidi100 autonumber failed; using the rules alone', { detail: got.result.detail });
    return [];
  }
  const json = parseJson(got.body);
  if (!Array.isArray(json)) {
    const why = isRecord(json) ? `returnCode ${brief(json.returnCode, 10)} ${brief(json.message)}` : 'not a JSON array';
    host.log('warn', 'kuaidi100 autonumber gave no list; using the rules alone', { detail: why });
    return [];
  }
  const list: Array<{ code: string; name: string | null }> = [];
  for (const item of json) {
    const code = isRecord(item) ? text(item.comCode) : null;
    if (!code || !/^[a-z0-9]+$/.test(code) || list.some((c) => c.code === code)) continue;
    list.push({ code, name: isRecord(item) ? text(item.name) : null });
  }
  // Only real answers are kept (an empty list is one); failures above are retried next time.
  autonumberMemo.set(cacheKey, list, host.now());
  return list.map(toCourier);
}

function toCourier(c: { code: string; name: string | null }): Courier {
  return findCourier(c.code) ?? { ...unknownCourier(c.code), zh: c.name ?? c.code };
}
