// Per-key limits from a console request body, beyond what its schema says: codes must exist, CIDRs must parse,
// a date must be real and ahead, a cap at most 6 decimals. `null` clears a limit; an absent field leaves it
// unchanged (PATCH).
import { isIP } from 'node:net';
import type { KeyLimits } from '../../accounts/api-keys.js';
import type { Registry } from '../../registry/registry.js';
import { parseIsoDate, reqTokens } from '../api/input.js';
import type { keyLimits } from '../contract/keys.js';
import type { Static } from '../contract/schema.js';
import { invalid } from './input-checks.js';

/** The limits of a create or update body: already checked against the schema (core/console/contract/keys.ts). */
export type KeyLimitsInput = {
  [K in keyof typeof keyLimits]?: Static<(typeof keyLimits)[K]>;
};

/** Trimmed and without repeats (the schema has checked 1-100 non-blank strings). */
const distinct = (v: string[]): string[] => [...new Set(v.map((x) => x.trim()))];

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

export function parseKeyLimits(b: KeyLimitsInput, registry: Registry, now = Date.now()): KeyLimits {
  const out: KeyLimits = {};
  if (b.allowed_codes !== undefined) {
    if (b.allowed_codes === null) out.allowed_codes = null;
    else {
      const codes = distinct(b.allowed_codes);
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
  if (b.ip_allow !== undefined) {
    if (b.ip_allow === null) out.ip_allow = null;
    else {
      const cidrs = distinct(b.ip_allow);
      const bad = cidrs.filter((c) => !isCidr(c));
      if (bad.length)
        throw invalid({
          zh: `'ip_allow' 中有不是 IP 地址或 CIDR 网段的条目：${bad.join(', ')}。`,
          en: `'ip_allow' holds entries that are not IP addresses or CIDR blocks: ${bad.join(', ')}.`,
        });
      out.ip_allow = cidrs;
    }
  }
  if (b.expires_at !== undefined) {
    if (b.expires_at === null) out.expires_at = null;
    else {
      const at = parseIsoDate(b.expires_at, 'expires_at');
      if (at <= now) throw invalid(`'expires_at' must be in the future.`);
      out.expires_at = at;
    }
  }
  if (b.rate_limit_per_sec !== undefined) out.rate_limit_per_sec = b.rate_limit_per_sec;
  if (b.rate_limit_burst !== undefined) out.rate_limit_burst = b.rate_limit_burst;
  if (out.rate_limit_per_sec && out.rate_limit_burst && out.rate_limit_burst < out.rate_limit_per_sec) {
    throw invalid(`'rate_limit_burst' must be at least 'rate_limit_per_sec'.`);
  }
  if (b.max_concurrency !== undefined) out.max_concurrency = b.max_concurrency;
  if (b.daily_spend_cap !== undefined) {
    if (b.daily_spend_cap === null) out.daily_spend_cap = null;
    else {
      const cap = reqTokens(b as Record<string, unknown>, 'daily_spend_cap');
      if (cap <= 0) throw invalid(`'daily_spend_cap' must be greater than 0 (use null for no cap).`);
      out.daily_spend_cap = cap;
    }
  }
  return out;
}
