// Connection caps: a total (so sockets never use up the process's file descriptors), a per-address cap (an IPv4
// address, an IPv6 /64) and a per-/48 cap, so one client holding thousands of idle sockets cannot take the total from
// everyone else; when the total is reached, room is made by closing the oldest sockets that never sent a request,
// and the last places are kept for addresses holding few (connection-fairness.ts).
import { readFileSync } from 'node:fs';
import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';
import { isIP } from 'node:net';
import type { TrustProxy } from '../config/edge-env.js';
import { throttledLine } from '../kernel/log-throttle.js';
import type { Logger } from '../kernel/logger.js';
import { compileProxyCheck, normalizeIp } from './client-ip.js';
import { ConnectionTable, fairnessOptions, type Verdict } from './connection-fairness.js';

export const DEFAULT_MAX_CONNECTIONS = 10_000;
export const DEFAULT_MAX_CONNECTIONS_PER_IP = 256;

/**
 * The soft RLIMIT_NOFILE of this process (Node raises it to the hard limit at start), or null where
 * /proc is missing. Node has no API for it.
 */
export function openFileLimit(limitsFile = '/proc/self/limits'): number | null {
  try {
    const m = /^Max open files\s+(\d+|unlimited)/m.exec(readFileSync(limitsFile, 'utf8'));
    if (!m) return null;
    return m[1] === 'unlimited' ? Number.MAX_SAFE_INTEGER : Number(m[1]);
  } catch {
    return null;
  }
}

/**
 * 10,000, or half the open-file limit when that is lower: every call may also hold an upstream socket, a database
 * connection and plugin asset files, so client sockets must not be allowed to take every descriptor.
 */
export function defaultMaxConnections(fileLimit: number | null): number {
  if (fileLimit === null) return DEFAULT_MAX_CONNECTIONS;
  return Math.max(16, Math.min(DEFAULT_MAX_CONNECTIONS, Math.floor(fileLimit / 2)));
}

/**
 * With a hop count every connection comes from the balancer, so a per-address cap would cap the balancer: off
 * unless set. With proxy CIDRs the proxies are exempt and everyone else is capped.
 */
export function defaultPerIpCap(trust: TrustProxy): number {
  return trust && 'hops' in trust && trust.hops > 0 ? 0 : DEFAULT_MAX_CONNECTIONS_PER_IP;
}

/** The eight 16-bit groups of an IPv6 address, as written (leading zeros dropped), or null for IPv4. */
function ipv6Groups(address: string): string[] | null {
  const addr = normalizeIp(address);
  if (isIP(addr) !== 6) return null;
  const [head = '', tail] = (addr.toLowerCase().split('%')[0] ?? '').split('::') as [string, string | undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  // An embedded IPv4 tail (::ffff:0:1.2.3.4) is two groups; only the first four groups matter here anyway.
  const rightGroups = right.reduce((n, g) => n + (g.includes('.') ? 2 : 1), 0);
  const groups =
    tail === undefined
      ? left
      : [...left, ...Array<string>(Math.max(0, 8 - left.length - rightGroups)).fill('0'), ...right];
  return groups.map((g) => g.replace(/^0+(?=.)/, ''));
}

/**
 * The unit the per-address cap counts: an IPv4 address, or the /64 of an IPv6 one (a host usually owns a whole
 * /64 and could otherwise open the cap's worth of sockets from each of its 2^64 addresses).
 */
export function addressGroup(address: string): string {
  const groups = ipv6Groups(address);
  return groups ? `${groups.slice(0, 4).join(':')}::/64` : normalizeIp(address);
}

/** The /48 of an IPv6 address (a site's usual allocation: 65,536 /64 groups), or null for IPv4. */
export function prefixGroup(address: string): string | null {
  const groups = ipv6Groups(address);
  return groups ? `${groups.slice(0, 3).join(':')}::/48` : null;
}

export interface ConnectionLimits {
  maxConnections: number;
  perIp: number;
  /** Open sockets of this address's group (see addressGroup) right now. */
  open(address: string): number;
  /** Open sockets of this address's IPv6 /48 right now (0 for IPv4). */
  openPrefix(address: string): number;
  /** Open sockets in all. */
  total(): number;
}

const REFUSED: Record<Exclude<Verdict, 'admitted'>, string> = {
  'per-address': 'connections over the per-address cap refused',
  'per-prefix': 'connections over the per-/48 cap refused',
  share: 'connections refused: the last places are kept for addresses holding few',
  full: 'connection refused: MAX_CONNECTIONS reached and every connection has sent a request',
};

/**
 * The caps of connection-fairness.ts on this server. Node's own server.maxConnections is not set: it refuses a
 * new connection before anyone can make room for it; the table keeps the total instead.
 */
export function applyConnectionLimits(
  server: Server,
  opts: { maxConnections: number; perIp: number; trust: TrustProxy; logger: Logger },
): ConnectionLimits {
  const evicted = throttledLine(
    opts.logger,
    'warn',
    'MAX_CONNECTIONS reached: the oldest connections that never sent a request were closed to make room',
  );
  const fairness = fairnessOptions(opts.maxConnections, opts.perIp);
  const table = new ConnectionTable<Socket>(fairness, (socket) => {
    socket.destroy();
    evicted();
  });
  // A trusted proxy's address is the address of everyone behind it: never cap it.
  const isTrustedProxy = compileProxyCheck(opts.trust);
  // A flood must not become a log flood: one line a minute per kind, with the count of those left out.
  const refusedLine = Object.fromEntries(
    Object.entries(REFUSED).map(([verdict, message]) => [verdict, throttledLine(opts.logger, 'warn', message)]),
  ) as Record<Exclude<Verdict, 'admitted'>, (fields?: Record<string, unknown>) => void>;
  server.on('connection', (socket: Socket) => {
    const peer = normalizeIp(socket.remoteAddress ?? '');
    const exempt = opts.perIp <= 0 || isTrustedProxy(peer);
    const group = exempt ? null : addressGroup(peer);
    const prefix = exempt ? null : prefixGroup(peer);
    const verdict = table.admit(socket, group, prefix);
    if (verdict !== 'admitted') {
      socket.destroy();
      refusedLine[verdict]({
        address: group ?? peer,
        cap:
          verdict === 'per-address' ? opts.perIp : verdict === 'per-prefix' ? fairness.perPrefix : opts.maxConnections,
      });
      return;
    }
    socket.once('close', () => table.remove(socket));
  });
  // A whole request arrived on the socket: its client is real, never closed to make room.
  server.on('request', (req: IncomingMessage) => table.served(req.socket));
  return {
    maxConnections: opts.maxConnections,
    perIp: opts.perIp,
    open: (a) => table.open(addressGroup(a)),
    openPrefix: (a) => {
      const p = prefixGroup(a);
      return p ? table.openPrefix(p) : 0;
    },
    total: () => table.size,
  };
}
