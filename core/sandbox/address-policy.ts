// Which network addresses a plugin may reach. Checked on every hop, after DNS resolution,
// so a public name that resolves to a private address (DNS rebinding, SSRF) is refused too.

import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

// Every special-purpose range of the IANA IPv4 and IPv6 registries that is not plain global unicast.
const V4_BLOCKED: ReadonlyArray<readonly [string, number]> = [
  // "this" network, private, CGNAT, loopback, link-local (incl. cloud metadata 169.254.169.254), IETF protocol
  // assignments, documentation, 6to4 relay anycast, benchmarking, multicast, reserved and broadcast.
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];
const V6_BLOCKED: ReadonlyArray<readonly [string, number]> = [
  ['::', 96], // unspecified, loopback and the deprecated IPv4-compatible ::a.b.c.d (RFC 4291)
  ['64:ff9b:1::', 48], // local-use NAT64 (RFC 8215): translates into the operator's own networks
  ['100::', 64], // discard-only (RFC 6666)
  ['2001::', 23], // IETF protocol assignments: Teredo 2001::/32, benchmarking, ORCHID (RFC 2928, 4380, 5180)
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4 (RFC 3056): embeds an IPv4 address, e.g. 2002:7f00:1:: is 127.0.0.1
  ['3fff::', 20], // documentation (RFC 9637)
  ['5f00::', 16], // SRv6 segment identifiers (RFC 9602)
  ['fc00::', 7], // unique local, incl. fd00:ec2::254 (AWS metadata)
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated, still routed on some networks)
  ['ff00::', 8], // multicast
];

const blocked = new BlockList();
for (const [net, prefix] of V4_BLOCKED) blocked.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of V6_BLOCKED) blocked.addSubnet(net, prefix, 'ipv6');

/** The 16 bytes of an IPv6 address in any textual form (::, embedded dotted quad), or null. */
export function ipv6Bytes(address: string): Uint8Array | null {
  if (isIP(address) !== 6) return null;
  let text = address;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1].split('.').map(Number);
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const groups = (part: string | undefined): string[] => (part ? part.split(':') : []);
  const hi = groups(head);
  const lo = tail === undefined ? [] : groups(tail);
  const all = tail === undefined ? hi : [...hi, ...Array<string>(8 - hi.length - lo.length).fill('0'), ...lo];
  if (all.length !== 8) return null;
  const out = new Uint8Array(16);
  all.forEach((g, i) => {
    const v = parseInt(g, 16);
    out[2 * i] = v >> 8;
    out[2 * i + 1] = v & 255;
  });
  return out;
}

const startsWith = (bytes: Uint8Array, prefix: readonly number[]): boolean => prefix.every((b, i) => bytes[i] === b);
const zeros = (n: number): number[] => Array<number>(n).fill(0);
// Prefixes whose last 32 bits are an IPv4 address that the packet really goes to.
const EMBEDDING_PREFIXES: ReadonlyArray<readonly number[]> = [
  [...zeros(10), 0xff, 0xff], // IPv4-mapped ::ffff:a.b.c.d
  [...zeros(8), 0xff, 0xff, 0, 0], // SIIT IPv4-translated ::ffff:0:a.b.c.d (RFC 2765)
  [0, 0x64, 0xff, 0x9b, ...zeros(8)], // NAT64 well-known prefix 64:ff9b::/96 (RFC 6052)
];

/** The IPv4 address an IPv6 address stands for (mapped, SIIT, NAT64), or null. */
function embeddedIpv4(address: string): string | null {
  const bytes = ipv6Bytes(address);
  if (!bytes || !EMBEDDING_PREFIXES.some((p) => startsWith(bytes, p))) return null;
  return `${bytes[12]}.${bytes[13]}.${bytes[14]}.${bytes[15]}`;
}

export function isForbiddenAddress(address: string): boolean {
  if (address.includes('%')) return true; // a zone id only makes sense for link-local addresses
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family === 6) {
    const v4 = embeddedIpv4(address);
    if (v4) return blocked.check(v4, 'ipv4');
    return blocked.check(address, 'ipv6');
  }
  return true; // not an address at all: refuse rather than guess
}

/** Resolves a host name to all its addresses. Injectable so tests never touch real DNS. */
export type Resolver = (hostname: string) => Promise<string[]>;

export const systemResolver: Resolver = async (hostname) => {
  const records = await lookup(hostname, { all: true, verbatim: true });
  return records.map((r) => r.address);
};

/** Does `hostname` match one of the manifest's allow_hosts patterns ("a.com" exact, "*.a.com" sub-domains)? */
export function isAllowedHost(hostname: string, allowHosts: readonly string[]): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  return allowHosts.some((pattern) => {
    const p = pattern.toLowerCase();
    if (p.startsWith('*.')) return host.endsWith(p.slice(1)) && host.length > p.length - 1;
    return host === p;
  });
}
