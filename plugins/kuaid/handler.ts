// kuaid: a tracking number in, the courier and its trail out. Detection runs offline from the format table;
// the trail comes from Kuaidi100 and/or Kdniao as configured, with failover. See README.md.
import type { Host, OperationPlugin, PluginOutcome } from '../../core/sandbox/contract.js';
import {
  certain,
  detectCouriers,
  isAmbiguous,
  mergeOpinion,
  type RankedCourier,
  unknownFormatReason,
} from './detect.js';
import { type KuaidInput, parseInput, unknownComMessage } from './input.js';
import { candidateOut, type KuaidDetectData, type KuaidTrackData } from './normalise.js';
import { KNOWN_PROVIDERS, type KuaidConfig, missingCredentialsMessage, readConfig } from './options.js';
import { kdniaoProvider } from './providers/kdniao.js';
import { kuaidi100Autonumber, kuaidi100Provider } from './providers/kuaidi100.js';
import type { Provider } from './providers/types.js';
import { runTrack } from './track.js';

type KuaidOutput = KuaidTrackData | KuaidDetectData;

/** What the caller reads when no provider is configured; which variables to set goes to the operator's log only. */
export const NOT_CONFIGURED = 'Parcel tracking is not available on this server yet; nothing was charged.';
export const NOT_CONFIGURED_ZH = '本服务器暂未开通快递查询；本次未扣费。';

/** The autonumber call is a hint, so it gets a short leash and never eats the trail query's time. */
const AUTONUMBER_TIMEOUT_MS = 2000;
/** Below this top confidence the rules are not sure enough to skip a second opinion (when one is configured). */
const SURE = 0.85;

/**
 * The configured providers in the operator's order; a canary's probe pinned to one (host.pin) gets only that one,
 * so its failure is not hidden by the next provider's answer.
 */
function buildProviders(config: KuaidConfig, pin: string | undefined): Provider[] {
  const { kuaidi100: k, kdniao: d, requestTimeoutMs: ms } = config;
  const out: Provider[] = [];
  const ids = pin === undefined ? config.providers : KNOWN_PROVIDERS.filter((id) => id === pin);
  for (const id of ids) {
    if (id === 'kuaidi100' && k.customer && k.key)
      out.push(kuaidi100Provider({ customer: k.customer, key: k.key }, ms));
    if (id === 'kdniao' && d.businessId && d.apiKey) {
      out.push(kdniaoProvider({ businessId: d.businessId, apiKey: d.apiKey, requestType: d.requestType }, ms));
    }
  }
  return out;
}

function detectAnswer(no: string, candidates: RankedCourier[]): KuaidDetectData {
  const top = candidates[0];
  return {
    no,
    com: top.courier.code,
    company: top.courier.zh,
    company_en: top.courier.en,
    needs_phone: top.courier.needs_phone,
    confidence: top.confidence,
    ambiguous: isAmbiguous(candidates),
    candidates: candidates.map(candidateOut),
  };
}

async function run(input: KuaidInput, host: Host): Promise<PluginOutcome<KuaidOutput>> {
  const config = readConfig(host.options);
  if (config.ignored.length) host.log('warn', 'kuaid ignored unknown option values', { ignored: config.ignored });
  const pin = host.pin;
  const providers = config.mode === 'track' ? buildProviders(config, pin) : [];
  // Configuration first: an unconfigured operation says so whatever the input. The gateway normally refuses it
  // before billing (operations.yaml `requires:`); this is the backstop when `providers` leaves out the configured
  // one. Which variables to set is for the operator's log, never for the caller.
  if (config.mode === 'track' && providers.length === 0) {
    if (pin !== undefined) {
      const message = `parcel provider ${pin} is not configured`;
      return { ok: false, code: 'UNAVAILABLE', message, message_zh: `快递数据提供方 ${pin} 未配置` };
    }
    host.log('warn', 'kuaid is not configured', { fix: missingCredentialsMessage(config) });
    return { ok: false, code: 'UNAVAILABLE', message: NOT_CONFIGURED, message_zh: NOT_CONFIGURED_ZH };
  }

  const parsed = parseInput(input);
  if (!parsed.ok) return { ok: false, code: 'INVALID_INPUT', message: parsed.message, message_zh: parsed.message_zh };
  const { no, phone, courier, courierKnown } = parsed.value;
  // Tracking may pass a code we do not list on to Kuaidi100 (it knows hundreds); detection has nobody to ask.
  if (courier && !courierKnown && config.mode === 'detect') {
    return { ok: false, code: 'INVALID_INPUT', ...unknownComMessage(courier.code) };
  }

  let candidates: RankedCourier[] = courier ? [certain(courier)] : detectCouriers(no).candidates;
  const key = config.kuaidi100.key;
  const unsure = candidates.length === 0 || candidates[0].confidence < SURE;
  // A probe pinned to another provider asks Kuaidi100 nothing.
  const mayAsk = pin === undefined || pin === 'kuaidi100';
  if (!courier && config.mode === 'track' && config.autonumber && key && unsure && mayAsk) {
    const opinion = await kuaidi100Autonumber(no, key, host, Math.min(AUTONUMBER_TIMEOUT_MS, config.requestTimeoutMs));
    candidates = mergeOpinion(candidates, opinion);
  }
  if (candidates.length === 0) return { ok: false, code: 'INVALID_INPUT', ...unknownFormatReason(no) };

  if (config.mode === 'detect') return { ok: true, data: detectAnswer(no, candidates) };
  return runTrack({ no, phone, candidates }, providers, host);
}

export const plugin: OperationPlugin<KuaidInput, KuaidOutput> = { run };
