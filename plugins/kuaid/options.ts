// The operation's options (operations.yaml, ${ENV} already substituted by the host) read into a typed config.
// An empty string, a missing value or a `${VAR}` left unsubstituted all mean "not configured".
import type { ProviderId } from './providers/types.js';

export interface KuaidConfig {
  mode: 'track' | 'detect';
  /** In the operator's order, unknown names dropped. */
  providers: ProviderId[];
  kuaidi100: { customer: string | null; key: string | null };
  kdniao: { businessId: string | null; apiKey: string | null; requestType: '1002' | '8001' };
  /** Ask Kuaidi100's autonumber for a second opinion when the rules give nothing or several couriers. */
  autonumber: boolean;
  /** Per-request limit, so a hung first provider leaves time for the second within the call's deadline. */
  requestTimeoutMs: number;
  /** Option values the plugin did not understand, for one warning line. */
  ignored: string[];
}

export const KNOWN_PROVIDERS: readonly ProviderId[] = ['kuaidi100', 'kdniao'];
const DEFAULT_REQUEST_TIMEOUT_MS = 3500;

function secret(v: unknown): string | null {
  if (typeof v === 'number') return String(v);
  if (typeof v !== 'string') return null;
  const t = v.trim();
  if (!t || /^\$\{[^}]*\}$/.test(t)) return null;
  return t;
}

function flag(v: unknown, fallback: boolean): boolean {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') return /^(true|1|yes|on)$/i.test(v.trim());
  return fallback;
}

function providerList(v: unknown, ignored: string[]): ProviderId[] {
  const raw = Array.isArray(v) ? v : typeof v === 'string' ? v.split(',') : [...KNOWN_PROVIDERS];
  const out: ProviderId[] = [];
  for (const item of raw) {
    const name = typeof item === 'string' ? item.trim().toLowerCase() : '';
    const known = KNOWN_PROVIDERS.find((p) => p === name);
    if (known && !out.includes(known)) out.push(known);
    else if (!known) ignored.push(`providers: ${String(item)}`);
  }
  return out;
}

export function readConfig(options: Readonly<Record<string, unknown>>): KuaidConfig {
  const ignored: string[] = [];
  const mode = options.mode === 'detect' ? 'detect' : 'track';
  if (options.mode !== undefined && options.mode !== 'detect' && options.mode !== 'track')
    ignored.push(`mode: ${String(options.mode)}`);
  const requestType = String(options.kdniao_request_type ?? '1002') === '8001' ? '8001' : '1002';
  const timeout = Number(options.request_timeout_ms);
  return {
    mode,
    providers: providerList(options.providers, ignored),
    kuaidi100: { customer: secret(options.kuaidi100_customer), key: secret(options.kuaidi100_key) },
    kdniao: { businessId: secret(options.kdniao_business_id), apiKey: secret(options.kdniao_api_key), requestType },
    autonumber: flag(options.autonumber, false),
    requestTimeoutMs: Number.isFinite(timeout) && timeout > 0 ? timeout : DEFAULT_REQUEST_TIMEOUT_MS,
    ignored,
  };
}

const ENV: Readonly<Record<ProviderId, ReadonlyArray<readonly [string, (c: KuaidConfig) => string | null]>>> = {
  kuaidi100: [
    ['KUAIDI100_CUSTOMER', (c) => c.kuaidi100.customer],
    ['KUAIDI100_KEY', (c) => c.kuaidi100.key],
  ],
  kdniao: [
    ['KDNIAO_BUSINESS_ID', (c) => c.kdniao.businessId],
    ['KDNIAO_API_KEY', (c) => c.kdniao.apiKey],
  ],
};

/** The UNAVAILABLE message: exactly which environment variables would make a provider work. */
export function missingCredentialsMessage(c: KuaidConfig): string {
  if (c.providers.length === 0) {
    return 'parcel tracking is not configured: options.providers names no known provider (use kuaidi100 and/or kdniao)';
  }
  const asks = c.providers.map((p) => {
    const missing = ENV[p].filter(([, get]) => get(c) === null).map(([name]) => name);
    return `${missing.join(' and ')} (${p})`;
  });
  return `parcel tracking is not configured: set ${asks.join(', or ')}`;
}
