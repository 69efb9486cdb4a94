// Per-key limits from a console request body, checked strictly: codes must exist, CIDRs must parse, numbers
// must be in range. `null` clears a limit; an absent field leaves it unchanged (PATCH).
import { isIP } from 'node:net';
import type { KeyLimits } from '../../accounts/api-keys.js';
import type { Registry } from '../../registry/registry.js';
import { type Body, invalid, parseIsoDate, reqInt, reqTokens } from './input.js';

export const LIMIT_FIELDS = [
  'allowed_codes',
  'ip_allow',
  'expires_at',
  'rate_limit_per_sec',
  'rate_limit_burst',
  'max_concurrency',
  'daily_spend_cap',
] as const;

const MAX_LIST = 100;

function stringList(v: unknown, name: string): string[] {
  if (
    !Array.isArray(v) ||
    v.length === 0 ||
    v.length > MAX_LIST ||
    !v.every((x) => typeof x === 'string' && x.trim() !== '')
  ) {
    throw invalid(`'${name}' must be null or a list of 1 to ${MAX_LIST} non-empty strings.`);
  }
  return [...new Set(v.map((x: string) => x.trim()))];
}

/** A single address or a CIDR block (IPv4 or IPv6), e.g. 10.0.0.0/8 or 2001:db8::/32. */
export function isCidr(text: string): boolean {
  const [addr, bits, extra] = text.split('/');
  if (extra !== undefined) return false;
  const family = isIP(addr);
  if (family === 0) return false;
  if (bits === undefined) return true;
  if (!/^\d{1,3}$/.test(bits)) return false;
  return Number(bits) <= (family === 4 ? 32 : 128);
}

export function parseKeyLimits(b: Body, registry: Registry, now = Date.now()): KeyLimits {
  const out: KeyLimits = {};
  if ('allowed_codes' in b) {
    if (b.allowed_codes === null) out.allowed_codes = null;
    else {
      const codes = stringList(b.allowed_codes, 'allowed_codes');
      const unknown = codes.filter((c) => !registry.get(c));
      // Both languages given: the echoed values may hold Chinese, which would make a plain string read as Chinese only.
      if (unknown.length)
        throw invalid({
          zh: `'allowed_codes' 中的操作不存在：${unknown.join(', ')}。`,
          en: `'allowed_codes' names operations that do not exist: ${unknown.join(', ')}.`,
        });
      out.allowed_codes = codes;
    }
  }
  if ('ip_allow' in b) {
    if (b.ip_allow === null) out.ip_allow = null;
    else {
      const cidrs = stringList(b.ip_allow, 'ip_allow');
      const bad = cidrs.filter((c) => !isCidr(c));
      if (bad.length)
        throw invalid({
          zh: `'ip_allow' 中有不是 IP 地址或 CIDR 网段的条目：${bad.join(', ')}。`,
          en: `'ip_allow' holds entries that are not IP addresses or CIDR blocks: ${bad.join(', ')}.`,
        });
      out.ip_allow = cidrs;
    }
  }
  if ('expires_at' in b) {
    if (b.expires_at === null) out.expires_at = null;
    else {
      const at = parseIsoDate(b.expires_at, 'expires_at');
      if (at <= now) throw invalid(`'expires_at' must be in the future.`);
      out.expires_at = at;
    }
  }
  if ('rate_limit_per_sec' in b)
    out.rate_limit_per_sec = b.rate_limit_per_sec === null ? null : reqInt(b, 'rate_limit_per_sec', 1, 10_000);
  if ('rate_limit_burst' in b)
    out.rate_limit_burst = b.rate_limit_burst === null ? null : reqInt(b, 'rate_limit_burst', 1, 100_000);
  if (out.rate_limit_per_sec && out.rate_limit_burst && out.rate_limit_burst < out.rate_limit_per_sec) {
    throw invalid(`'rate_limit_burst' must be at least 'rate_limit_per_sec'.`);
  }
  if ('max_concurrency' in b)
    out.max_concurrency = b.max_concurrency === null ? null : reqInt(b, 'max_concurrency', 1, 1000);
  if ('daily_spend_cap' in b) {
    if (b.daily_spend_cap === null) out.daily_spend_cap = null;
    else {
      const cap = reqTokens(b, 'daily_spend_cap');
      if (cap <= 0) throw invalid(`'daily_spend_cap' must be greater than 0 (use null for no cap).`);
      out.daily_spend_cap = cap;
    }
  }
  return out;
}
