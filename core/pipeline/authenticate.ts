// Stage: find the caller's key (X-API-Key header, or api_key in the query or body) and check it may be used.
import { BlockList, isIP } from 'node:net';
import type { KeyIdentity } from '../accounts/api-keys.js';
import { sha256Hex } from '../accounts/secrets.js';
import { addressGroup } from '../http/connection-limits.js';
import { DETAILS } from '../http/error-details.js';
import { type Denial, deny } from '../http/errors.js';
import { after } from '../kernel/maybe-promise.js';
import type { Services } from '../services.js';
import type { ApiCall, Stage } from './call.js';

function keyFrom(call: ApiCall): string | undefined {
  const header = call.headers['x-api-key'];
  if (typeof header === 'string' && header) return header.trim();
  const q = call.query.api_key;
  if (typeof q === 'string' && q) return q.trim();
  const b = (call.body as Record<string, unknown> | null)?.api_key;
  if (typeof b === 'string' && b) return b.trim();
  return undefined;
}

/** CIDR lists are small and checked on every call of a restricted key; compile each list once. */
const allowLists = new Map<string, BlockList>();
function ipAllowed(ip: string, cidrs: string[]): boolean {
  const id = cidrs.join(',');
  let list = allowLists.get(id);
  if (!list) {
    list = new BlockList();
    for (const c of cidrs) {
      const [net, bits] = c.split('/');
      const family = isIP(net) === 6 ? 'ipv6' : 'ipv4';
      if (bits === undefined) list.addAddress(net, family);
      else list.addSubnet(net, Number(bits), family);
    }
    allowLists.set(id, list);
  }
  const addr = ip.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, '$1');
  return list.check(addr, isIP(addr) === 6 ? 'ipv6' : 'ipv4');
}

export const authenticate: Stage<ApiCall, { identity: KeyIdentity }> = (call, s) => {
  const secret = keyFrom(call);
  if (!secret) return keyless(call, s, deny('MISSING_API_KEY'));
  if (!/^sk_[A-Za-z0-9_-]{20,100}$/.test(secret)) return keyless(call, s, deny('INVALID_API_KEY', DETAILS.keyFormat()));
  return after(s.keys.get(sha256Hex(secret)), (identity) =>
    identity ? admitIdentity(call, identity) : keyless(call, s, deny('INVALID_API_KEY')),
  );
};

/**
 * A call without a valid key takes a token of its address group's budget (state/address-budget.ts); once the
 * budget is spent it is answered 429 with Retry-After, so a stranger's flood costs a refusal, never more.
 */
function keyless(call: ApiCall, s: Services, denial: Denial): Denial {
  const wait = s.refused.apiBudget.take(addressGroup(call.ip));
  if (wait === 0) return denial;
  return deny('RATE_LIMITED', 'Too many requests without a valid API key from this address.', wait);
}

function admitIdentity(call: ApiCall, identity: KeyIdentity): Denial | undefined {
  call.identity = identity;
  if (identity.userStatus !== 'active') return deny('KEY_DISABLED', DETAILS.keyOwnerDisabled());
  if (identity.keyStatus !== 'active') return deny('KEY_DISABLED');
  if (identity.expiresAt !== null && identity.expiresAt <= Date.now()) {
    return deny('KEY_EXPIRED', DETAILS.keyExpiredAt(new Date(identity.expiresAt).toISOString()));
  }
  if (identity.ipAllow && identity.ipAllow.length > 0 && !ipAllowed(call.ip, identity.ipAllow)) {
    return deny('IP_NOT_ALLOWED', DETAILS.ipNotAllowed(call.ip));
  }
  return undefined;
}
