// Mail settings from the environment. SMTP_URL (smtp:// or smtps://user:pass@host:port) wins; otherwise
// SMTP_HOST with SMTP_PORT / SMTP_SECURE / SMTP_USER / SMTP_PASS. With neither, mail goes to the outbox table.
export interface SmtpSettings {
  /** A full URL, or null when host/port are given separately. */
  url: string | null;
  host: string | null;
  port: number;
  /** TLS from the first byte (port 465); otherwise STARTTLS when the server offers it. */
  secure: boolean;
  user: string | null;
  pass: string | null;
}

export interface MailSettings {
  /** null: no SMTP configured, mails go to the outbox table and the log. */
  smtp: SmtpSettings | null;
  /** The From header, e.g. `Tollgate <noreply@example.com>`. */
  from: string;
  /** Connection, greeting and socket timeouts of one SMTP conversation. */
  timeoutMs: number;
}

function port(raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 65535)
    throw new Error(`SMTP_PORT must be a port number (1-65535), got "${raw}"`);
  return n;
}

export function readMailSettings(env: NodeJS.ProcessEnv): MailSettings {
  const from = env.MAIL_FROM || 'Tollgate <noreply@localhost>';
  const timeoutRaw = env.SMTP_TIMEOUT_MS;
  const timeoutMs = timeoutRaw ? Number(timeoutRaw) : 10_000;
  if (!Number.isInteger(timeoutMs) || timeoutMs < 100)
    throw new Error(`SMTP_TIMEOUT_MS must be an integer >= 100, got "${timeoutRaw}"`);
  if (env.SMTP_URL) {
    let url: URL;
    try {
      url = new URL(env.SMTP_URL);
    } catch {
      throw new Error('SMTP_URL must be a URL like smtp://user:pass@host:587 or smtps://user:pass@host:465');
    }
    if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:')
      throw new Error('SMTP_URL must start with smtp:// or smtps://');
    return {
      smtp: { url: env.SMTP_URL, host: null, port: 0, secure: url.protocol === 'smtps:', user: null, pass: null },
      from,
      timeoutMs,
    };
  }
  if (env.SMTP_HOST) {
    const secure = env.SMTP_SECURE === 'true' || env.SMTP_SECURE === '1';
    return {
      smtp: {
        url: null,
        host: env.SMTP_HOST,
        port: port(env.SMTP_PORT, secure ? 465 : 587),
        secure,
        user: env.SMTP_USER || null,
        pass: env.SMTP_PASS || null,
      },
      from,
      timeoutMs,
    };
  }
  return { smtp: null, from, timeoutMs };
}
