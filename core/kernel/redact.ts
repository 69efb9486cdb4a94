// What never reaches a log line: API keys, Authorization headers, passwords, secrets and tokens.
// Two layers, because the fields come from two kinds of writer:
// - the gateway's own lines have known shapes, so pino's compiled `redact` paths cover them (top level, one level
//   down, and header maps) at almost no cost per line;
// - a plugin's host.log fields are any shape, any depth, written by code we do not control: scrubSecrets() walks
//   them and replaces every value whose key looks like a credential.
export const REDACT_CENSOR = '[redacted]';

const KEYS = [
  'api_key',
  'apiKey',
  'apikey',
  'authorization',
  'Authorization',
  'password',
  'secret',
  'token',
  'access_token',
  'refresh_token',
  'cookie',
];

/** pino `redact` paths for the gateway's own fields. */
export const REDACT_PATHS: readonly string[] = [
  ...KEYS,
  ...KEYS.map((k) => `*.${k}`),
  'headers["x-api-key"]',
  '*.headers["x-api-key"]',
  '*.headers.authorization',
  '*.headers.cookie',
];

// Matched against the key lower-cased with '-' and '_' removed: "X-API-Key" -> "xapikey", "client_secret" -> "clientsecret".
const SECRET_KEY =
  /^pass$|password|passwd|passphrase|^pwd$|secret|token|apikey|appkey|accesskey|privatekey|authorization|^auth$|cookie|signature|^sign$|^key$|credential/;

export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key.toLowerCase().replace(/[-_]/g, ''));
}

/**
 * A copy of `value` with every property whose key looks like a credential replaced by "[redacted]", at any depth.
 * Meant for JSON-shaped data (the sandbox already cloned plugin fields through JSON, so there are no cycles).
 */
export function scrubSecrets<T>(value: T, depth = 0): T {
  if (value === null || typeof value !== 'object') return value;
  if (depth > 32) return REDACT_CENSOR as T; // deeper than any honest log field: not worth walking
  if (Array.isArray(value)) return value.map((v: unknown) => scrubSecrets(v, depth + 1)) as T;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    out[k] = isSecretKey(k) && v !== null && v !== undefined && v !== '' ? REDACT_CENSOR : scrubSecrets(v, depth + 1);
  }
  return out as T;
}
