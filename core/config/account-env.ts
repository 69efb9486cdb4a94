// Operator switches for sign-up and account security (README "Accounts and security").
export interface AccountSettings {
  /** REGISTRATION=closed turns public sign-up off (admins still add users from the CLI). */
  registrationOpen: boolean;
  /** REGISTRATION_EMAIL_DOMAINS=example.com,corp.cn: only these domains may sign up; empty = any. */
  registrationDomains: string[];
  /** REQUIRE_EMAIL_VERIFICATION=true: a new account logs in only after following the mailed link. */
  requireEmailVerification: boolean;
  /** REQUIRE_ADMIN_2FA=true: an admin without TOTP gets a session only for turning 2FA on. */
  requireAdmin2fa: boolean;
  /**
   * Base URL used in mailed links (PUBLIC_URL), e.g. https://api.example.com; default http://localhost:<the port the
   * server is bound to> (set again after listening, see publicUrlFor).
   */
  publicUrl: string;
  /** USER_TOKEN_REMEMBER_HOURS: lifetime of a console login with "remember me" (default 30 days). */
  rememberTokenHours: number;
}

function flag(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (['true', '1', 'yes', 'on'].includes(raw.toLowerCase())) return true;
  if (['false', '0', 'no', 'off'].includes(raw.toLowerCase())) return false;
  throw new Error(`${name} must be true or false, got "${raw}"`);
}

function hours(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  // Up to a year: a longer-lived bearer token is a liability, not a convenience.
  if (!Number.isInteger(n) || n < 1 || n > 24 * 366)
    throw new Error(`${name} must be a whole number of hours from 1 to 8784, got "${raw}"`);
  return n;
}

/**
 * The base of mailed links and the front page's example: PUBLIC_URL as configured, else this machine at `port`.
 * Read again once the server listens (core/main.ts): with PORT=0 (or `serve --port`) only the bound socket knows
 * the port, and a link saying port 0 leads nowhere.
 */
export function publicUrlFor(env: NodeJS.ProcessEnv, port: number): string {
  const publicUrl = (env.PUBLIC_URL || `http://localhost:${port}`).replace(/\/+$/, '');
  if (!/^https?:\/\//.test(publicUrl)) throw new Error('PUBLIC_URL must start with http:// or https://');
  return publicUrl;
}

export function readAccountSettings(env: NodeJS.ProcessEnv, port: number): AccountSettings {
  const reg = (env.REGISTRATION ?? 'open').toLowerCase();
  if (reg !== 'open' && reg !== 'closed')
    throw new Error(`REGISTRATION must be open or closed, got "${env.REGISTRATION}"`);
  const domains = (env.REGISTRATION_EMAIL_DOMAINS ?? '')
    .split(',')
    .map((d) => d.trim().toLowerCase())
    .filter(Boolean);
  for (const d of domains)
    if (!/^[a-z0-9.-]+\.[a-z]{2,}$/.test(d)) throw new Error(`REGISTRATION_EMAIL_DOMAINS: "${d}" is not a domain name`);
  const publicUrl = publicUrlFor(env, port);
  return {
    registrationOpen: reg === 'open',
    registrationDomains: domains,
    requireEmailVerification: flag(env, 'REQUIRE_EMAIL_VERIFICATION', false),
    requireAdmin2fa: flag(env, 'REQUIRE_ADMIN_2FA', false),
    publicUrl,
    rememberTokenHours: hours(env, 'USER_TOKEN_REMEMBER_HOURS', 30 * 24),
  };
}
