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

export function newRequestId(): string {
  return `req_${randomBytes(12).toString('base64url')}`;
}
