// Row types of the account-security tables (migration 006).
import type { Generated } from 'kysely';

export interface MailOutboxTable {
  id: Generated<number>;
  to_addr: string;
  subject: string;
  text_body: string;
  html_body: string | null;
  /** 'outbox' (no SMTP configured) or 'smtp'. */
  transport: 'outbox' | 'smtp';
  /** 'queued' (outbox only), 'sent', 'failed'. */
  status: 'queued' | 'sent' | 'failed';
  error: string | null;
  message_id: string | null;
  created_at: number;
}

/** Single-use tokens mailed or handed out: only the SHA-256 is stored. */
export interface AccountTokensTable {
  token_hash: string;
  user_id: number;
  purpose: 'reset' | 'verify' | 'twofactor';
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

export interface UserSecurityTable {
  user_id: number;
  locale: string | null;
  /** 1 while a sign-up waits for its email to be confirmed (only when verification is switched on). */
  email_unverified: Generated<number>;
  totp_secret: string | null;
  /** Secret shown at enrolment, active only once a code from it is confirmed. */
  totp_pending_secret: string | null;
  totp_enabled_at: number | null;
  /** Last accepted 30-second step: a code is accepted once (replay guard). */
  totp_last_step: number | null;
}

export interface RecoveryCodesTable {
  id: Generated<number>;
  user_id: number;
  code_hash: string;
  used_at: number | null;
}

export interface AccountSecurityTables {
  mail_outbox: MailOutboxTable;
  account_tokens: AccountTokensTable;
  user_security: UserSecurityTable;
  recovery_codes: RecoveryCodesTable;
}
