// Functions the expressions of a configured upstream may call beyond JSONata's own: digests and HMAC (computed by
// the host), hex and base64 of UTF-8 text, and a sorted query string, which request signing schemes are made of.
// JSONata's own $base64encode/$base64decode reach for window.btoa or global.Buffer, which the isolate has not:
// the versions here replace them.
import type { Host } from '../../core/sandbox/contract.js';

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

export function utf8Bytes(text: string): number[] {
  const bytes: number[] = [];
  const encoded = encodeURIComponent(text); // %XX for every non-ASCII byte; unreserved characters stay as they are
  for (let i = 0; i < encoded.length; i++) {
    if (encoded[i] === '%') {
      bytes.push(parseInt(encoded.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(encoded.charCodeAt(i));
  }
  return bytes;
}

export function base64Encode(text: string): string {
  const bytes = utf8Bytes(text);
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i] << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    out += B64[(n >> 18) & 63] + B64[(n >> 12) & 63];
    out += i + 1 < bytes.length ? B64[(n >> 6) & 63] : '=';
    out += i + 2 < bytes.length ? B64[n & 63] : '=';
  }
  return out;
}

export function base64Decode(text: string): string {
  const clean = text.replace(/[\s=]/g, '').replace(/-/g, '+').replace(/_/g, '/');
  let hex = '';
  let bits = 0;
  let acc = 0;
  for (const ch of clean) {
    const v = B64.indexOf(ch);
    if (v < 0) throw new Error('$base64decode: not base64');
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      hex += `%${((acc >> bits) & 255).toString(16).padStart(2, '0')}`;
    }
  }
  return decodeURIComponent(hex);
}

function hex(text: string): string {
  return utf8Bytes(text)
    .map((b) => b.toString(16).padStart(2, '0'))
    .join('');
}

const enc = (v: unknown): 'hex' | 'base64' => (v === 'base64' ? 'base64' : 'hex');
const alg = (v: unknown): 'md5' | 'sha1' | 'sha256' => {
  if (v === 'md5' || v === 'sha1' || v === 'sha256') return v;
  throw new Error(`$hmac: unsupported algorithm ${String(v)} (md5, sha1, sha256)`);
};

/** "a=1&b=2": keys sorted, names and values URL-encoded, undefined and null left out. */
export function sortedQuery(obj: unknown): string {
  if (!obj || typeof obj !== 'object') return '';
  const o = obj as Record<string, unknown>;
  return Object.keys(o)
    .filter((k) => o[k] !== undefined && o[k] !== null)
    .sort()
    .map((k) => `${encodeURIComponent(k)}=${encodeURIComponent(String(o[k]))}`)
    .join('&');
}

/** JSONata bindings for one call (host is per call). */
export function functionsFor(host: Host): Record<string, unknown> {
  return {
    md5: (s: unknown, e?: unknown) => host.digest('md5', String(s), enc(e)),
    sha1: (s: unknown, e?: unknown) => host.digest('sha1', String(s), enc(e)),
    sha256: (s: unknown, e?: unknown) => host.digest('sha256', String(s), enc(e)),
    hmac: (a: unknown, key: unknown, s: unknown, e?: unknown) => host.hmac(alg(a), String(key), String(s), enc(e)),
    hex: (s: unknown) => hex(String(s)),
    base64encode: (s: unknown) => (s === undefined ? undefined : base64Encode(String(s))),
    base64decode: (s: unknown) => (s === undefined ? undefined : base64Decode(String(s))),
    sortedQuery: (o: unknown) => sortedQuery(o),
    nowMillis: () => host.now(),
  };
}
