// SHA256withRSA over "k=v&k=v" strings, shared by Alipay (RSA2) and WeChat Pay v3. Keys are PEM (PKCS#8 or
// PKCS#1) or a bare base64 body as the Alipay console hands them out.
import { createPrivateKey, createPublicKey, createSign, createVerify, type KeyObject } from 'node:crypto';

function pemBody(text: string, kind: 'PRIVATE' | 'PUBLIC'): string {
  if (text.includes('-----BEGIN')) return text;
  const body = text.replace(/\s+/g, '').replace(/(.{64})/g, '$1\n');
  return `-----BEGIN ${kind} KEY-----\n${body}\n-----END ${kind} KEY-----\n`;
}

export function privateKeyOf(text: string, what: string): KeyObject {
  try {
    return createPrivateKey(pemBody(text.trim(), 'PRIVATE'));
  } catch {
    throw new Error(`${what} is not an RSA private key (PEM or base64 PKCS#8)`);
  }
}

export function publicKeyOf(text: string, what: string): KeyObject {
  try {
    return createPublicKey(pemBody(text.trim(), 'PUBLIC'));
  } catch {
    throw new Error(`${what} is not an RSA public key or certificate (PEM or base64)`);
  }
}

export function rsaSign(text: string, key: KeyObject): string {
  return createSign('RSA-SHA256').update(text, 'utf8').sign(key, 'base64');
}

export function rsaVerify(text: string, signature: string, key: KeyObject): boolean {
  try {
    return createVerify('RSA-SHA256').update(text, 'utf8').verify(key, signature, 'base64');
  } catch {
    return false;
  }
}

/** Sorted "k=v&..." of the non-empty fields, leaving out the named ones (sign, sign_type). */
export function sortedPairs(fields: Record<string, string>, exclude: readonly string[]): string {
  return Object.keys(fields)
    .filter((k) => !exclude.includes(k) && fields[k] !== '' && fields[k] !== undefined)
    .sort()
    .map((k) => `${k}=${fields[k]}`)
    .join('&');
}
