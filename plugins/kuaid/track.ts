// The failover loop: providers in the operator's order, up to two candidate couriers each when detection
// found several. A provider's "no record" or "wrong phone" is an answer and ends the search; a provider
// that fails (network, 5xx, busy, quota, credentials) or does not carry the courier hands over to the next.
import type { Host, PluginOutcome } from '../../core/sandbox/contract.js';
import type { Courier } from './couriers.js';
import type { RankedCourier } from './detect.js';
import { phoneRequiredMessage } from './input.js';
import { noRecordMemo } from './memo.js';
import { cacheTtlFor, type KuaidTrackData, toTrackData } from './normalise.js';
import type { Provider, ProviderId } from './providers/types.js';
import { said, type TwoLanguages } from './two-languages.js';

/** Each query costs quota and Kuaidi100 locks numbers polled too often, so guesses are capped. */
const MAX_GUESSES_PER_PROVIDER = 2;

export interface TrackPlan {
  no: string;
  phone: string | null;
  /** Best first; one element when the caller named the courier or detection found only one. */
  candidates: RankedCourier[];
}

interface Failure {
  provider: ProviderId;
  kind: 'failed' | 'timeout';
  detail: string;
}

/** A provider that does not carry a courier we asked it about. */
interface NotCarried {
  provider: ProviderId;
  code: string;
}

/**
 * What each provider did, for the failure messages: in both languages only what happened (failed, timed out, does
 * not carry the courier). The providers' own details (their raw answers, an errno, a credential complaint) are the
 * operator's `detail`, logged by the gateway and never shown to the caller.
 */
function summarise(failures: Failure[], notCarried: NotCarried[]): TwoLanguages & { detail: string | undefined } {
  const en = [
    ...failures.map((f) => `${f.provider} ${f.kind === 'timeout' ? 'timed out' : 'failed'}`),
    ...notCarried.map((u) => `${u.provider} does not carry ${u.code}`),
  ];
  const zh = [
    ...failures.map((f) => `${f.provider} ${f.kind === 'timeout' ? '超时' : '出错'}`),
    ...notCarried.map((u) => `${u.provider} 不支持 ${u.code}`),
  ];
  const detail = failures.length ? failures.map((f) => `${f.provider}: ${f.detail}`).join('; ') : undefined;
  return { ...said(en.join('; '), zh.join('；')), detail };
}

/**
 * "No record yet" is not an answer a customer can use, so it is a NOT_FOUND failure: the pipeline charges
 * nothing for it. Said in both languages, with what to do next.
 */
function noRecordMessage(no: string, courier: Courier, others: Courier[]): TwoLanguages {
  const maybe = others.map((c) => c.code);
  const hint = maybe.length ? ` If the courier is not ${courier.code}, pass com= (it may be ${maybe.join(', ')}).` : '';
  const hintZh = maybe.length ? `如果不是${courier.zh}，请传 com=（可能是 ${maybe.join('、')}）。` : '';
  return {
    message: `No tracking record yet for ${no} at ${courier.en}: new parcels usually get their first scan within hours of pickup. Try again later; this call was not charged.${hint}`,
    message_zh: `暂无物流轨迹：${courier.zh} 还没有单号 ${no} 的记录，新单号通常在揽收后几小时内出现首条轨迹，请稍后再查（本次未扣费）。${hintZh}`,
  };
}

/**
 * The negative-cache key: the same number asked of the same couriers (and phone) by the same operation, and of the
 * same provider for a canary's pinned probe (which must reach that provider, not read another's answer).
 */
function noRecordKey(host: Host, plan: TrackPlan, askable: Courier[]): string {
  return [host.operation, plan.no, askable.map((c) => c.code).join(','), plan.phone ?? '', host.pin ?? ''].join('|');
}

export async function runTrack(
  plan: TrackPlan,
  providers: Provider[],
  host: Host,
): Promise<PluginOutcome<KuaidTrackData>> {
  const couriers = plan.candidates.map((r) => r.courier);
  const several = couriers.length > 1;
  const top = couriers[0];
  if (top.needs_phone && !plan.phone) {
    const rest = couriers.slice(1).map((c) => c.code);
    const m = phoneRequiredMessage(top);
    return {
      ok: false,
      code: 'INVALID_INPUT',
      message: several ? `${m.message} (the number also fits ${rest.join(', ')}: pass com= to pick one)` : m.message,
      message_zh: several ? `${m.message_zh}（该单号也可能属于 ${rest.join('、')}：请传 com= 指定）` : m.message_zh,
    };
  }
  // Lower-ranked guesses that need a phone cannot be asked without one: skip them rather than fail.
  const askable = couriers.filter((c) => plan.phone || !c.needs_phone);
  const guesses = several ? MAX_GUESSES_PER_PROVIDER : 1;
  const candidates = several ? plan.candidates : null;

  // A repeat of a "no record" answer within a minute: same answer, no upstream query.
  const memoKey = noRecordKey(host, plan, askable);
  const remembered = noRecordMemo.get(memoKey, host.now());
  if (remembered)
    return { ok: false, code: 'NOT_FOUND', message: remembered.message, message_zh: remembered.message_zh };

  const failures: Failure[] = [];
  const unsupported: NotCarried[] = [];
  let noRecord: Courier | null = null;
  let badPhone: { courier: Courier; detail: string } | null = null;
  let asked = false;

  for (const provider of providers) {
    const attempts = askable.filter((c) => provider.supports(c)).slice(0, guesses);
    let handOver = attempts.length === 0;
    for (const courier of attempts) {
      asked = true;
      const result = await provider.query({ no: plan.no, courier, phone: plan.phone }, host);
      if (result.kind === 'found') {
        const data = toTrackData({
          no: plan.no,
          courier,
          provider: provider.id,
          track: result.track,
          candidates,
          nowMs: host.now(),
        });
        return { ok: true, data, cache_ttl: cacheTtlFor(data.state) };
      }
      if (result.kind === 'no_record') {
        noRecord ??= courier;
        continue;
      }
      if (result.kind === 'bad_phone') {
        badPhone ??= { courier, detail: result.detail };
        continue;
      }
      if (result.kind === 'unsupported') {
        // Not this provider's courier: the next guess, or the next provider, may still answer.
        unsupported.push({ provider: provider.id, code: courier.code });
        handOver = true;
        continue;
      }
      failures.push({ provider: provider.id, kind: result.kind, detail: result.detail });
      host.log('warn', 'parcel provider failed; trying the next one', { provider: provider.id, detail: result.detail });
      handOver = true;
      break;
    }
    if (!handOver) break;
  }

  if (badPhone) {
    const c = badPhone.courier;
    return {
      ok: false,
      code: 'INVALID_INPUT',
      message: `the phone number does not match this ${c.en} parcel: pass the sender's or receiver's phone or its last 4 digits`,
      message_zh: `手机号与这件${c.zh}快件不符：请传寄件人或收件人的手机号或手机号后 4 位`,
      detail: badPhone.detail,
    };
  }
  if (noRecord) {
    const m = noRecordMessage(plan.no, noRecord, couriers.filter((c) => c !== noRecord).slice(0, 2));
    noRecordMemo.set(memoKey, { courier: noRecord.code, ...m }, host.now());
    return { ok: false, code: 'NOT_FOUND', ...m };
  }
  if (failures.length === 0) {
    const s = summarise([], unsupported);
    const why = unsupported.length ? ` (${s.message})` : '';
    const whyZh = unsupported.length ? `（${s.message_zh}）` : '';
    const named = `${top.zh}（${top.code}）`;
    return {
      ok: false,
      code: 'UNSUPPORTED',
      ...(asked
        ? said(
            `no configured parcel provider carries ${top.zh} (${top.code})${why}; pass com= if the courier is another one`,
            `已配置的快递数据提供方都不支持${named}${whyZh}；如果是其他快递公司，请传 com= 指定`,
          )
        : said(
            `no configured parcel provider can query ${top.zh} (${top.code}); configure kuaidi100`,
            `已配置的快递数据提供方都无法查询${named}，需配置快递100（kuaidi100）`,
          )),
    };
  }
  const s = summarise(failures, unsupported);
  if (failures.every((f) => f.kind === 'timeout')) {
    return {
      ok: false,
      code: 'UPSTREAM_TIMEOUT',
      message: `parcel providers did not answer in time (${s.message})`,
      message_zh: `快递数据提供方未及时响应（${s.message_zh}）`,
      ...(s.detail ? { detail: s.detail } : {}),
    };
  }
  return {
    ok: false,
    code: 'UPSTREAM_FAILED',
    message: `parcel providers failed (${s.message})`,
    message_zh: `快递数据提供方查询失败（${s.message_zh}）`,
    ...(s.detail ? { detail: s.detail } : {}),
  };
}
