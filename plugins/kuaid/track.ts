// The failover loop: providers in the operator's order, up to two candidate couriers each when detection
// was ambiguous. A provider's "no record" or "wrong phone" is an answer and ends the search; a provider
// that fails (network, 5xx, busy, quota, credentials) hands over to the next one.
import type { Host, PluginOutcome } from '../../core/sandbox/contract.js';
import type { Courier } from './couriers.js';
import { phoneRequiredMessage } from './input.js';
import { toTrackData, cacheTtlFor, type KuaidTrackData } from './normalise.js';
import type { Provider, ProviderId } from './providers/types.js';

/** Each query costs quota and Kuaidi100 locks numbers polled too often, so guesses are capped. */
const MAX_GUESSES_PER_PROVIDER = 2;

export interface TrackPlan {
  no: string;
  phone: string | null;
  /** Best first; one element when the caller named the courier or detection was certain. */
  candidates: Courier[];
  ambiguous: boolean;
}

interface Failure {
  provider: ProviderId;
  kind: 'failed' | 'timeout';
  detail: string;
}

export async function runTrack(plan: TrackPlan, providers: Provider[], host: Host): Promise<PluginOutcome<KuaidTrackData>> {
  const top = plan.candidates[0];
  if (top.needs_phone && !plan.phone) {
    const others = plan.ambiguous ? ` (the number also fits ${plan.candidates.slice(1).map((c) => c.code).join(', ')}: pass com= to pick one)` : '';
    return { ok: false, code: 'INVALID_INPUT', message: phoneRequiredMessage(top) + others };
  }
  // Lower-ranked guesses that need a phone cannot be asked without one: skip them rather than fail.
  const askable = plan.candidates.filter((c) => plan.phone || !c.needs_phone);
  const guesses = plan.ambiguous ? MAX_GUESSES_PER_PROVIDER : 1;
  const candidates = plan.ambiguous ? plan.candidates : null;

  const failures: Failure[] = [];
  let noRecord: { provider: ProviderId; courier: Courier } | null = null;
  let badPhone: { courier: Courier; detail: string } | null = null;
  let asked = false;

  for (const provider of providers) {
    const attempts = askable.filter((c) => provider.supports(c)).slice(0, guesses);
    let providerFailed = false;
    for (const courier of attempts) {
      asked = true;
      const result = await provider.query({ no: plan.no, courier, phone: plan.phone }, host);
      if (result.kind === 'found') {
        const data = toTrackData({ no: plan.no, courier, provider: provider.id, track: result.track, candidates, nowMs: host.now() });
        return { ok: true, data, cache_ttl: cacheTtlFor(data.state, false) };
      }
      if (result.kind === 'no_record') {
        noRecord ??= { provider: provider.id, courier };
        continue;
      }
      if (result.kind === 'bad_phone') {
        badPhone ??= { courier, detail: result.detail };
        continue;
      }
      failures.push({ provider: provider.id, kind: result.kind, detail: result.detail });
      host.log('warn', 'parcel provider failed; trying the next one', { provider: provider.id, detail: result.detail });
      providerFailed = true;
      break;
    }
    if (attempts.length > 0 && !providerFailed) break;
  }

  if (badPhone) {
    const c = badPhone.courier;
    return {
      ok: false,
      code: 'INVALID_INPUT',
      message: `the phone number does not match this ${c.zh} (${c.en}) parcel: pass the sender's or receiver's phone or its last 4 digits (${badPhone.detail})`,
    };
  }
  if (noRecord) {
    const data = toTrackData({ no: plan.no, courier: noRecord.courier, provider: noRecord.provider, track: null, candidates, nowMs: host.now() });
    return { ok: true, data, cache_ttl: cacheTtlFor('PENDING', true) };
  }
  if (!asked) {
    return { ok: false, code: 'UNSUPPORTED', message: `no configured parcel provider can query ${top.zh} (${top.code}); configure kuaidi100` };
  }
  const summary = failures.map((f) => `${f.provider}: ${f.detail}`).join('; ');
  if (failures.every((f) => f.kind === 'timeout')) {
    return { ok: false, code: 'UPSTREAM_TIMEOUT', message: `parcel providers did not answer in time (${summary})` };
  }
  return { ok: false, code: 'UPSTREAM_FAILED', message: `parcel providers failed (${summary})` };
}
