// scrypt password hashing (node:crypto). Stored as scrypt$N$r$p$salt$hash, so parameters can rise over time:
// a login that verifies an older, cheaper hash stores a fresh one (needsRehash), with no user action.
import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto';

/** OWASP Password Storage Cheat Sheet: N=2^17, r=8, p=1 (128 MiB and ~0.25 s per hash on one core). */
export const SCRYPT_PARAMS = { N: 2 ** 17, r: 8, p: 1 } as const;
const KEY_LEN = 32;
// scrypt needs 128 * N * r bytes; allow the current parameters with headroom and refuse anything a tampered
// or absurd stored hash would make us allocate.
const MAX_MEM = 128 * SCRYPT_PARAMS.N * SCRYPT_PARAMS.r + 32 * 1024 * 1024;

interface Parsed {
  N: number;
  r: number;
  p: number;
  salt: Buffer;
  hash: Buffer;
}

function derive(password: string, salt: Buffer, opts: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFKC'), salt, KEY_LEN, { ...opts, maxmem: MAX_MEM }, (err, key) =>
      err ? reject(err) : resolve(key),
    );
  });
}

function parse(stored: string): Parsed | null {
  const [scheme, n, r, p, salt, hash, extra] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash || extra !== undefined) return null;
  const [N, R, P] = [Number(n), Number(r), Number(p)];
  if (![N, R, P].every((x) => Number.isSafeInteger(x) && x > 0)) return null;
  return { N, r: R, p: P, salt: Buffer.from(salt, 'base64'), hash: Buffer.from(hash, 'base64') };
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const { N, r, p } = SCRYPT_PARAMS;
  const key = await derive(password, salt, { N, r, p });
  return `scrypt$${N}$${r}$${p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parse(stored);
  if (!parsed) return false;
  let key: Buffer;
  try {
    key = await derive(password, parsed.salt, { N: parsed.N, r: parsed.r, p: parsed.p });
  } catch {
    return false; // parameters scrypt refuses (or above MAX_MEM): no password can match such a hash
  }
  return key.length === parsed.hash.length && timingSafeEqual(key, parsed.hash);
}

/** True when the stored hash uses weaker parameters than today's: re-hash it after a successful login. */
export function needsRehash(stored: string): boolean {
  const parsed = parse(stored);
  if (!parsed) return true;
  return (
    parsed.N < SCRYPT_PARAMS.N ||
    parsed.r < SCRYPT_PARAMS.r ||
    parsed.p < SCRYPT_PARAMS.p ||
    parsed.hash.length < KEY_LEN
  );
}

/** Why a password is too weak, or null. */
export function passwordWeakness(password: string): string | null {
  if (password.length < 8) return 'password must be at least 8 characters';
  if (password.length > 200) return 'password must be at most 200 characters';
  if (!/[A-Za-z]/.test(password) || !/[0-9]/.test(password)) return 'password must contain letters and digits';
  return null;
}
