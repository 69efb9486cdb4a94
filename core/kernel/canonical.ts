// Stable JSON (sorted keys) so equal inputs give equal cache keys and idempotency hashes.
import { hash } from 'node:crypto';

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.keys(value)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
  return `{${entries.join(',')}}`;
}

export function hashOf(...parts: unknown[]): string {
  return hash('sha256', canonicalJson(parts), 'hex');
}

/** Up to this many characters the canonical text is the key itself; longer ones are hashed to bound key size. */
const LONGEST_PLAIN_KEY = 200;

/**
 * A key for equal `parts`, for maps and shared-state keys (the result cache, single flight): the canonical text when
 * short, which every phone or tracking number is, else its SHA-256. Hashing a short text was a twentieth of a cache
 * hit's pipeline time. The two forms start differently ('=' and '#'), so they never meet.
 */
export function keyOf(...parts: unknown[]): string {
  const text = canonicalJson(parts);
  return text.length <= LONGEST_PLAIN_KEY ? `=${text}` : `#${hash('sha256', text, 'hex')}`;
}
