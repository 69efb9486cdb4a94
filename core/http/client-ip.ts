// The client's IP, decided once per request and read by everything that cares (ip_allow, the call log, login and
// registration throttles): `clientIpOf(ctx)`. Behind proxies it is the right-most X-Forwarded-For entry that was
// not written by a trusted proxy; entries further left were written by the client and prove nothing.
import { BlockList, isIP } from 'node:net';
import type { Context, Next } from 'koa';
import type { TrustProxy } from '../config/edge-env.js';
import { requestIp } from './api-edge.js';

/** '::ffff:1.2.3.4' (an IPv4 client on a dual-stack socket) and '1.2.3.4' are one client. */
export function normalizeIp(ip: string): string {
  return ip.startsWith('::ffff:') && isIP(ip.slice(7)) === 4 ? ip.slice(7) : ip;
}

/** An X-Forwarded-For entry as an address: some balancers append a port ("1.2.3.4:5678", "[::1]:80"). */
function entryAddress(entry: string): string | null {
  let v = entry.trim();
  if (v.startsWith('[')) v = v.slice(1, v.indexOf(']') > 0 ? v.indexOf(']') : undefined);
  else if (/^\d+\.\d+\.\d+\.\d+:\d+$/.test(v)) v = v.slice(0, v.lastIndexOf(':'));
  return isIP(v) ? normalizeIp(v) : null;
}

export type ClientIpResolver = (remoteAddress: string, forwardedFor: string | undefined) => string;

/** Is this address one of the trusted proxies of a CIDR-list TRUST_PROXY? (Never true for a hop count.) */
export function compileProxyCheck(trust: TrustProxy): (addr: string) => boolean {
  if (!trust || !('cidrs' in trust)) return () => false;
  const list = new BlockList();
  for (const c of trust.cidrs) {
    const [net, bits] = c.split('/') as [string, string | undefined];
    const family = isIP(net) === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) list.addAddress(net, family);
    else list.addSubnet(net, Number(bits), family);
  }
  // BlockList.check is costly (a native SocketAddress per call; docs/performance.md "Costs cited by the code") and runs
  // on every request; the addresses seen are few (the proxies and their clients' last hops), so answers are remembered
  // in a bounded map.
  const seen = new Map<string, boolean>();
  return (addr) => {
    let hit = seen.get(addr);
    if (hit === undefined) {
      const family = isIP(addr);
      hit = family !== 0 && list.check(addr, family === 6 ? 'ipv6' : 'ipv4');
      if (seen.size >= 4096) seen.clear();
      seen.set(addr, hit);
    }
    return hit;
  };
}

/**
 * Compiled once at start. Walks from the socket's peer leftwards through X-Forwarded-For while the current hop is
 * trusted; the first untrusted hop is the client. A malformed entry stops the walk at the hop that wrote it.
 */
export function compileClientIp(trust: TrustProxy): ClientIpResolver {
  if (!trust) return (remote) => normalizeIp(remote);
  const hops = 'hops' in trust ? trust.hops : -1;
  const isProxy = compileProxyCheck(trust);
  const trusted = hops >= 0 ? (_addr: string, hop: number) => hop < hops : (addr: string) => isProxy(addr);
  return (remote, forwardedFor) => {
    let addr = normalizeIp(remote);
    if (!forwardedFor || !trusted(addr, 0)) return addr;
    const entries = forwardedFor.split(',');
    for (let hop = 1, i = entries.length - 1; i >= 0; hop++, i--) {
      const next = entryAddress(entries[i] ?? '');
      if (next === null) return addr;
      addr = next;
      if (!trusted(addr, hop)) return addr;
    }
    return addr;
  };
}

/** First thing after the request id: every later reader of the IP (Koa's ctx.ip included) sees the same value. */
export function clientIpMiddleware(resolve: ClientIpResolver) {
  return (ctx: Context, next: Next): Promise<void> => {
    ctx.request.ip = requestIp(ctx.req, resolve);
    return next();
  };
}

/** The one source of the client IP for every feature (set by clientIpMiddleware). */
export function clientIpOf(ctx: Context): string {
  return ctx.request.ip;
}
