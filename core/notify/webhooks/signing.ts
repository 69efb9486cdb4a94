// Standard Webhooks signatures (standardwebhooks.com): the secret is `whsec_` + base64 key bytes; each request
// carries webhook-id, webhook-timestamp (seconds) and webhook-signature `v1,<base64 HMAC-SHA256 of
// "id.timestamp.body">`. Receivers verify with any Standard Webhooks library (svix, standardwebhooks).
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const PREFIX = 'whsec_';

export function newWebhookSecret(): string {
  return PREFIX + randomBytes(24).toString('base64');
}

export function newMessageId(): string {
  return `msg_${randomBytes(16).toString('hex')}`;
}

function keyOf(secret: string): Buffer {
  return Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
}

export function signPayload(secret: string, messageId: string, timestampSec: number, body: string): string {
  const mac = createHmac('sha256', keyOf(secret)).update(`${messageId}.${timestampSec}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/** The three request headers for one attempt. The timestamp is the attempt's, so a replay is signed fresh. */
export function standardHeaders(
  secret: string,
  messageId: string,
  timestampSec: number,
  body: string,
): Record<string, string> {
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(timestampSec),
    'webhook-signature': signPayload(secret, messageId, timestampSec, body),
  };
}

/** Receiver side, for tests and for operators' own checks: true when one listed v1 signature matches. */
export function verifySignature(secret: string, headers: Record<string, string | undefined>, body: string): boolean {
  const id = headers['webhook-id'];
  const ts = Number(headers['webhook-timestamp']);
  const list = headers['webhook-signature'];
  if (!id || !Number.isFinite(ts) || !list) return false;
  const expected = Buffer.from(signPayload(secret, id, ts, body));
  return list.split(' ').some((sig) => {
    const got = Buffer.from(sig);
    return got.length === expected.length && timingSafeEqual(got, expected);
  });
}
