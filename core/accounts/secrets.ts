// Random secrets (API keys, user tokens) and their hashes. Only the SHA-256 hash is ever stored.
import { hash, randomBytes } from 'node:crypto';

/** One-shot `hash` (Node 20.12+): about a third of createHash().update().digest() for short texts, once per call. */
export function sha256Hex(text: string): string {
  return hash('sha256', text, 'hex');
}

/** `sk_` + 43 url-safe characters (256 bits). */
export function newApiKeySecret(): string {
  return `sk_${randomBytes(32).toString('base64url')}`;
}

/** The short public part shown in lists: enough to tell keys apart, useless for guessing. */
export function keyDisplayPrefix(secret: string): string {
  return secret.slice(0, 11);
}

/** `ut_` + 43 characters: user (console) bearer tokens. */
export function newUserToken(): string {
  return `ut_${randomBytes(32).toString('base64url')}`;
}

// Request ids are unique, not secret, and ordered by time. They are the key of the call-log and ledger rows a
// billed call writes (request_id, ref), so ids that grow with the clock put every commit's new index entries on
// the same few right-most pages; random ids put each on a page of its own, and on a large database most of a
// capture's cost became writing those pages (docs/performance.md "Time-ordered request ids"). Shape: req_ + the
// millisecond clock in 9 characters of an alphabet in ASCII order (so the text sorts by time) + 12 random base64url
// characters drawn from a pooled buffer rather than a randomBytes() call per request.
const TIME_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const RANDOM_BYTES = 9;
let pool: Buffer = Buffer.alloc(0);
let offset = 0;
let lastMs = -1;
let timePart = '';

function clockText(ms: number): string {
  let out = '';
  for (let i = 0, v = ms; i < 9; i++, v = Math.floor(v / 32)) out = TIME_ALPHABET[v % 32] + out;
  return out;
}

export function newRequestId(): string {
  if (offset + RANDOM_BYTES > pool.length) {
    pool = randomBytes(RANDOM_BYTES * 512);
    offset = 0;
  }
  const now = Date.now();
  if (now !== lastMs) {
    lastMs = now;
    timePart = clockText(now);
  }
  const id = pool.toString('base64url', offset, offset + RANDOM_BYTES);
  offset += RANDOM_BYTES;
  return `req_${timePart}${id}`;
}
