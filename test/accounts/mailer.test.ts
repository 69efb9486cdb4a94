import { type AddressInfo, createServer } from 'node:net';
import t from 'tap';
import { createSmtpMailer } from '../../core/accounts/mail/mailer.js';
import { readMailSettings } from '../../core/config/mail-env.js';
import { createTestApp } from '../helpers/create-test-app.js';
import { startSmtpSink } from './smtp-sink.js';

t.test('with no SMTP configured a mail is kept in the outbox and the log', async (t) => {
  const app = await createTestApp();
  t.teardown(() => app.close());
  t.equal(app.services.mailer.transport, 'outbox');
  const r = await app.services.mailer.send({ to: 'a@example.com', subject: 'Hello', text: 'Body line' });
  t.ok(r.ok);
  const rows = await app.services.store.db.selectFrom('mail_outbox').selectAll().execute();
  t.equal(rows.length, 1);
  t.match(rows[0], {
    to_addr: 'a@example.com',
    subject: 'Hello',
    text_body: 'Body line',
    transport: 'outbox',
    status: 'queued',
    error: null,
  });
  t.ok(app.logs.some((l) => l.message === 'mail kept in the outbox (no SMTP configured)' && l.to === 'a@example.com'));
});

t.test('SMTP: the message arrives as sent, with From, To, subject, text and html', async (t) => {
  const sink = await startSmtpSink();
  const app = await createTestApp({
    settings: { mail: readMailSettings({ SMTP_URL: sink.url, MAIL_FROM: 'Tollgate <noreply@example.com>' }) },
  });
  t.teardown(async () => {
    await app.close();
    await sink.close();
  });
  t.equal(app.services.mailer.transport, 'smtp');
  const r = await app.services.mailer.send({
    to: 'b@example.com',
    subject: '重置密码 Reset',
    text: 'plain 文本',
    html: '<p>html</p>',
  });
  t.ok(r.ok);
  const mail = await sink.next();
  t.equal(mail.subject, '重置密码 Reset');
  t.equal(mail.text?.trim(), 'plain 文本');
  t.equal(typeof mail.html === 'string' && mail.html.includes('<p>html</p>'), true);
  t.equal(mail.from?.value[0].address, 'noreply@example.com');
  t.same(
    (Array.isArray(mail.to) ? mail.to[0] : mail.to)?.value.map((v) => v.address),
    ['b@example.com'],
  );
  const row = await app.services.store.db.selectFrom('mail_outbox').selectAll().executeTakeFirstOrThrow();
  t.match(row, { transport: 'smtp', status: 'sent', error: null });
  t.ok(row.message_id);
});

t.test('SMTP refusal and an unreachable server are failures, recorded as failed', async (t) => {
  const sink = await startSmtpSink();
  sink.refuse = true;
  const app = await createTestApp({ settings: { mail: readMailSettings({ SMTP_URL: sink.url }) } });
  t.teardown(async () => {
    await app.close();
    await sink.close();
  });
  const r = await app.services.mailer.send({ to: 'c@example.com', subject: 'x', text: 'y' });
  t.equal(r.ok, false);
  if (!r.ok) t.match(r.error, /550|unavailable/);
  const row = await app.services.store.db.selectFrom('mail_outbox').selectAll().executeTakeFirstOrThrow();
  t.equal(row.status, 'failed');

  // A port nobody listens on: connection refused.
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', () => resolve()));
  const deadPort = (probe.address() as AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  const dead = createSmtpMailer(
    app.services.store.db,
    readMailSettings({ SMTP_HOST: '127.0.0.1', SMTP_PORT: String(deadPort), SMTP_TIMEOUT_MS: '2000' }),
    app.services.logger,
  );
  const r2 = await dead.send({ to: 'd@example.com', subject: 'x', text: 'y' });
  dead.close();
  t.equal(r2.ok, false);
  t.equal(sink.mails.length, 0);
});

t.test('a line break in the recipient or subject is refused before sending', async (t) => {
  const app = await createTestApp();
  t.teardown(() => app.close());
  const r = await app.services.mailer.send({ to: 'a@example.com\r\nBcc: x@evil.com', subject: 'Hi', text: 't' });
  t.equal(r.ok, false);
});

t.test('mail settings: SMTP_URL must be smtp(s), ports are checked, nothing set means outbox', async (t) => {
  t.equal(readMailSettings({}).smtp, null);
  t.throws(() => readMailSettings({ SMTP_URL: 'http://x' }), /smtp:\/\//);
  t.throws(() => readMailSettings({ SMTP_HOST: 'h', SMTP_PORT: '70000' }), /SMTP_PORT/);
  t.match(readMailSettings({ SMTP_HOST: 'h', SMTP_SECURE: 'true' }).smtp, { host: 'h', port: 465, secure: true });
  t.match(readMailSettings({ SMTP_HOST: 'h' }).smtp, { port: 587, secure: false });
});
