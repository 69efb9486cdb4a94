// Connection caps: a total (server.maxConnections, so sockets never use up the process's file descriptors) and a
// per-address cap, so one client holding thousands of idle sockets cannot take the total from everyone else.
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { isIP } from 'node:net';
import type { TrustProxy } from '../config/edge-env.js';
import type { Logger } from '../kernel/logger.js';
import { compileProxyCheck, normalizeIp } from './client-ip.js';

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

/**
 * The unit the per-address cap counts: an IPv4 address, or the /64 of an IPv6 one (a host usually owns a whole
 * /64 and could otherwise open the cap's worth of sockets from each of its 2^64 addresses).
 */
export function addressGroup(address: string): string {
  const addr = normalizeIp(address);
  if (isIP(addr) !== 6) return addr;
  const [head = '', tail] = addr.toLowerCase().split('%')[0]!.split('::') as [string, string | undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  // An embedded IPv4 tail (::ffff:0:1.2.3.4) is two groups; only the first four groups matter here anyway.
  const rightGroups = right.reduce((n, g) => n + (g.includes('.') ? 2 : 1), 0);
  const groups =
    tail === undefined
      ? left
      : [...left, ...Array<string>(Math.max(0, 8 - left.length - rightGroups)).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

export interface ConnectionLimits {
  maxConnections: number;
  perIp: number;
  /** Open sockets of this address's group (see addressGroup) right now. */
  open(address: string): number;
}

export function applyConnectionLimits(
  server: Server,
  opts: { maxConnections: number; perIp: number; trust: TrustProxy; logger: Logger },
): ConnectionLimits {
  server.maxConnections = opts.maxConnections;
  const counts = new Map<string, number>();
  // A trusted proxy's address is the address of everyone behind it: never cap it.
  const isTrustedProxy = compileProxyCheck(opts.trust);
  let dropped = 0;
  let lastWarn = 0;
  if (opts.perIp > 0) {
    server.on('connection', (socket: Socket) => {
      const peer = normalizeIp(socket.remoteAddress ?? '');
      if (isTrustedProxy(peer)) return;
      const addr = addressGroup(peer);
      const n = (counts.get(addr) ?? 0) + 1;
      if (n > opts.perIp) {
        socket.destroy();
        dropped++;
        // A flood must not become a log flood: one line a minute with the count.
        const now = Date.now();
        if (now - lastWarn > 60_000) {
          opts.logger.warn('connections over the per-address cap refused', {
            address: addr,
            cap: opts.perIp,
            refused_since_last: dropped,
          });
          lastWarn = now;
          dropped = 0;
        }
        return;
      }
      counts.set(addr, n);
      socket.once('close', () => {
        const left = (counts.get(addr) ?? 1) - 1;
        if (left <= 0) counts.delete(addr);
        else counts.set(addr, left);
      });
    });
  }
  server.on('drop', () => {
    const now = Date.now();
    if (now - lastWarn > 60_000) {
      opts.logger.warn('connection refused: MAX_CONNECTIONS reached', { max_connections: opts.maxConnections });
      lastWarn = now;
    }
  });
  return { maxConnections: opts.maxConnections, perIp: opts.perIp, open: (a) => counts.get(addressGroup(a)) ?? 0 };
}
