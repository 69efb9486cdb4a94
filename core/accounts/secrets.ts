// Random secrets (API keys, user tokens) and their hashes. Only the SHA-256 hash is ever stored.
import { createHash, randomBytes } from 'node:crypto';

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
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

// Request ids need to be unique, not secret: draw them from a pooled random buffer instead of a
// synchronous randomBytes() call on every request.
const ID_BYTES = 12;
let pool: Buffer = Buffer.alloc(0);
let offset = 0;

export function newRequestId(): string {
  if (offset + ID_BYTES > pool.length) {
    pool = randomBytes(ID_BYTES * 512);
    offset = 0;
  }
  const id = pool.toString('base64url', offset, offset + ID_BYTES);
  offset += ID_BYTES;
  return `req_${id}`;
}
