// Outgoing mail. Two implementations behind one interface, chosen by the environment: SMTP through nodemailer
// when SMTP_URL or SMTP_HOST is set, otherwise the outbox (a table row plus a log line), so every mail flow
// works on a fresh machine and an admin can read what would have been sent. Every mail, either way, leaves a row
// in mail_outbox with its real outcome: a refused or unreachable SMTP server is a failure, never "sent".

import type { Kysely } from 'kysely';
import nodemailer from 'nodemailer';
import type { MailSettings } from '../../config/mail-env.js';
import type { Logger } from '../../kernel/logger.js';
import type { Database } from '../../store/schema.js';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
}

export type MailResult =
  | { ok: true; id: number; transport: 'smtp' | 'outbox'; messageId: string | null }
  /** `error` is for operators (logs, admin outbox page); customers only learn that mail failed. */
  | { ok: false; id: number; transport: 'smtp' | 'outbox'; error: string };

export interface Mailer {
  readonly transport: 'smtp' | 'outbox';
  send(msg: MailMessage): Promise<MailResult>;
  close(): void;
}

/** Header injection guard: an address or subject with a line break would let input write headers. */
function checkHeaders(msg: MailMessage): string | null {
  if (/[\r\n]/.test(msg.to) || /[\r\n]/.test(msg.subject)) return 'line break in a header field';
  if (!msg.to.includes('@')) return 'no recipient address';
  return null;
}

async function record(
  db: Kysely<Database>,
  msg: MailMessage,
  transport: 'smtp' | 'outbox',
  status: 'queued' | 'sent' | 'failed',
  error: string | null,
  messageId: string | null,
): Promise<number> {
  const row = await db
    .insertInto('mail_outbox')
    .values({
      to_addr: msg.to,
      subject: msg.subject,
      text_body: msg.text,
      html_body: msg.html ?? null,
      transport,
      status,
      error,
      message_id: messageId,
      created_at: Date.now(),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

/** No SMTP configured: the mail is kept in the outbox table and written to the log for the operator. */
export function createOutboxMailer(db: Kysely<Database>, logger: Logger): Mailer {
  return {
    transport: 'outbox',
    async send(msg) {
      const bad = checkHeaders(msg);
      if (bad)
        return { ok: false, id: await record(db, msg, 'outbox', 'failed', bad, null), transport: 'outbox', error: bad };
      const id = await record(db, msg, 'outbox', 'queued', null, null);
      logger.info('mail kept in the outbox (no SMTP configured)', {
        mail_id: id,
        to: msg.to,
        subject: msg.subject,
        text: msg.text,
      });
      return { ok: true, id, transport: 'outbox', messageId: null };
    },
    close() {},
  };
}

export function createSmtpMailer(db: Kysely<Database>, settings: MailSettings, logger: Logger): Mailer {
  const smtp = settings.smtp;
  if (!smtp) throw new Error('createSmtpMailer without SMTP settings');
  const timeouts = {
    connectionTimeout: settings.timeoutMs,
    greetingTimeout: settings.timeoutMs,
    socketTimeout: settings.timeoutMs,
  };
  const transporter = smtp.url
    ? nodemailer.createTransport(smtp.url, { from: settings.from })
    : nodemailer.createTransport({
        host: smtp.host ?? undefined,
        port: smtp.port,
        secure: smtp.secure,
        auth: smtp.user ? { user: smtp.user, pass: smtp.pass ?? '' } : undefined,
        ...timeouts,
      });
  return {
    transport: 'smtp',
    async send(msg) {
      const bad = checkHeaders(msg);
      if (bad)
        return { ok: false, id: await record(db, msg, 'smtp', 'failed', bad, null), transport: 'smtp', error: bad };
      try {
        const info = (await transporter.sendMail({
          from: settings.from,
          to: msg.to,
          subject: msg.subject,
          text: msg.text,
          html: msg.html,
        })) as {
          messageId?: string;
          rejected?: unknown[];
        };
        // A server may accept the conversation but refuse this recipient: that mail was not sent.
        if (info.rejected && info.rejected.length > 0)
          throw new Error(`recipient refused: ${String(info.rejected[0])}`);
        const id = await record(db, msg, 'smtp', 'sent', null, info.messageId ?? null);
        return { ok: true, id, transport: 'smtp', messageId: info.messageId ?? null };
      } catch (err) {
        const error = err instanceof Error ? err.message : String(err);
        logger.warn('mail failed', { to: msg.to, subject: msg.subject, error });
        return {
          ok: false,
          id: await record(db, msg, 'smtp', 'failed', error.slice(0, 500), null),
          transport: 'smtp',
          error,
        };
      }
    },
    close() {
      transporter.close();
    },
  };
}

export function createMailer(db: Kysely<Database>, settings: MailSettings, logger: Logger): Mailer {
  return settings.smtp ? createSmtpMailer(db, settings, logger) : createOutboxMailer(db, logger);
}
