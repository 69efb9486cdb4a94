// What console throttles and per-IP limits count: the caller's address group, built on the gateway's single
// client-IP source (core/http/client-ip.ts, which honours TRUST_PROXY and counts ::ffff:a.b.c.d as a.b.c.d), so
// ip_allow, the call log and the console throttles always agree on one IP.
import type { Context } from 'koa';
import { clientIpOf } from '../../http/client-ip.js';
import { addressGroup } from '../../http/connection-limits.js';

/**
 * The unit per-IP limits and login throttles count: an IPv4 address, or the /64 of an IPv6 one. A host usually
 * owns a whole /64; counting single IPv6 addresses would give it 2^64 fresh budgets.
 */
export function clientGroupOf(ctx: Context): string {
  return addressGroup(clientIpOf(ctx));
}
