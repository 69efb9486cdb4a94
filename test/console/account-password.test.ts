// Password change, reset by mailed link (through a real in-process SMTP server), admin reset and sessions.
import t from 'tap';
import { sha256Hex } from '../../core/accounts/secrets.js';
import { readMailSettings } from '../../core/config/mail-env.js';
import { type SmtpSink, startSmtpSink } from '../accounts/smtp-sink.js';
import { createTestApp, type TestApp } from '../helpers/create-test-app.js';
import { admin, bearer } from './support.js';

let h: TestApp;
let sink: SmtpSink;
t.before(async () => {
  sink = await startSmtpSink();
  h = await createTestApp({
    settings: {
      trustProxy: { hops: 1 },
      mail: readMailSettings({ SMTP_URL: sink.url, MAIL_FROM: 'Tollgate <noreply@example.com>' }),
    },
  });
});
t.teardown(async () => {
  await h.close();
  await sink.close();
});

// Each test speaks from its own address, so per-IP budgets spent by one test do not leak into the next.
let ipSeq = 0;
let ip = '10.9.0.1';
t.beforeEach(() => {
  ip = `10.9.${++ipSeq}.1`;
});
const withIp = (headers: Record<string, string> = {}): Record<string, string> => ({
  'x-forwarded-for': ip,
  ...headers,
});
const c = {
  get: (path: string, headers?: Record<string, string>) => h.client.get(path, withIp(headers)),
  post: (path: string, body: unknown, headers?: Record<string, string>) => h.client.post(path, body, withIp(headers)),
  request: (path: string, opts: { method: string; body?: unknown; headers?: Record<string, string> }) =>
    h.client.request(path, { ...opts, headers: withIp(opts.headers) }),
};

let seq = 0;
async function register(locale?: string): Promise<{ email: string; token: string; id: number }> {
  const email = `pw${++seq}@example.com`;
  const res = await c.request('/console/api/register', {
    method: 'POST',
    body: { email, password: 'password123' },
    headers: locale ? { 'accept-language': locale } : {},
  });
  if (res.status !== 201) throw new Error(`register ${res.status} ${res.text}`);
  return { email, token: res.body.token, id: res.body.user.id };
}

const login = (email: string, password: string) => c.post('/console/api/login', { email, password });

function linkToken(text: string): string {
  const m = /\/console\/reset\?token=(rt_[A-Za-z0-9_-]{43})/.exec(text);
  if (!m) throw new Error(`no reset link in: ${text}`);
  return m[1];
}

t.test('forgot -> a zh mail with a single-use link; reset signs every session out; old password dead', async (t) => {
  const u = await register('zh-CN,zh;q=0.9,en;q=0.5');
  const other = await login(u.email, 'password123');
  t.equal(other.status, 200);

  const res = await c.post('/console/api/password/forgot', { email: u.email.toUpperCase() });
  t.equal(res.status, 202);
  t.same(res.body, {
    accepted: true,
    message:
      'If an account exists for this email, a link to reset its password has been sent. It is valid for 30 minutes.',
  });
  const mail = await sink.next();
  t.equal(mail.subject, '重置您的 Tollgate 密码');
  t.match(mail.text, /30 分钟/);
  t.same(
    (Array.isArray(mail.to) ? mail.to[0] : mail.to)?.value.map((v) => v.address),
    [u.email],
  );
  const token = linkToken(mail.text ?? '');
  t.match(mail.text, `http://localhost:8080/console/reset?token=${token}`);
  // Only the hash is stored.
  const row = await h.services.store.db
    .selectFrom('account_tokens')
    .selectAll()
    .where('token_hash', '=', sha256Hex(token))
    .executeTakeFirstOrThrow();
  t.equal(row.purpose, 'reset');
  t.equal(Number(row.expires_at) - Number(row.created_at), 30 * 60_000);

  // A weak password is refused before the token is used up.
  const weak = await c.post('/console/api/password/reset', { token, password: 'short' });
  t.equal(weak.status, 400);
  t.equal(weak.body.error.code, 'INVALID_INPUT');

  const ok = await c.post('/console/api/password/reset', { token, password: 'newpassword456' });
  t.equal(ok.status, 200);
  t.same(ok.body, { reset: true, signed_out_sessions: 2 });
  t.equal((await c.get('/console/api/me', bearer(u.token))).status, 401);
  t.equal((await c.get('/console/api/me', bearer(other.body.token))).status, 401);
  t.equal((await login(u.email, 'password123')).status, 401);
  t.equal((await login(u.email, 'newpassword456')).status, 200);

  const again = await c.post('/console/api/password/reset', { token, password: 'another789x' });
  t.equal(again.status, 400);
  t.same(again.body.error, {
    code: 'INVALID_TOKEN',
    message: 'This link is invalid, has expired or was already used. Ask for a new one.',
  });
});

t.test('forgot for an unknown email: the same answer, and no mail', async (t) => {
  const before = sink.mails.length;
  const res = await c.post('/console/api/password/forgot', { email: 'nobody-here@example.com' });
  t.equal(res.status, 202);
  t.same(res.body, {
    accepted: true,
    message:
      'If an account exists for this email, a link to reset its password has been sent. It is valid for 30 minutes.',
  });
  await new Promise((r) => setTimeout(r, 300));
  t.equal(sink.mails.length, before);
  const bad = await c.post('/console/api/password/forgot', { email: 'not-an-email' });
  t.equal(bad.status, 400);
  t.equal(bad.body.error.code, 'INVALID_INPUT');
});

t.test(
  'an expired reset link is refused; a new request voids nothing but a new password voids older links',
  async (t) => {
    const u = await register('en-US');
    await c.post('/console/api/password/forgot', { email: u.email });
    const first = linkToken((await sink.next()).text ?? '');
    await c.post('/console/api/password/forgot', { email: u.email });
    const second = linkToken((await sink.next()).text ?? '');
    await h.services.store.db
      .updateTable('account_tokens')
      .set({ expires_at: Date.now() - 1 })
      .where('token_hash', '=', sha256Hex(first))
      .execute();
    const expired = await c.post('/console/api/password/reset', { token: first, password: 'newpassword456' });
    t.equal(expired.body.error.code, 'INVALID_TOKEN');
    // A third link, then the second is used: the third dies with the old password.
    await c.post('/console/api/password/forgot', { email: u.email });
    const third = linkToken((await sink.next()).text ?? '');
    t.equal((await c.post('/console/api/password/reset', { token: second, password: 'newpassword456' })).status, 200);
    t.equal(
      (await c.post('/console/api/password/reset', { token: third, password: 'newpassword789' })).body.error.code,
      'INVALID_TOKEN',
    );
  },
);

t.test('reset mails per account are capped (3 at once); the answer stays the same', async (t) => {
  const u = await register();
  const before = sink.mails.length;
  for (let i = 0; i < 4; i++) t.equal((await c.post('/console/api/password/forgot', { email: u.email })).status, 202);
  await new Promise((r) => setTimeout(r, 500));
  t.equal(sink.mails.length - before, 3);
  for (let i = 0; i < 3; i++) await sink.next();
});

t.test('change password: current password required; other sessions end, this one stays; notice mailed', async (t) => {
  const u = await register('en');
  const other = (await login(u.email, 'password123')).body.token;
  const wrong = await c.post(
    '/console/api/me/password',
    { current_password: 'wrongpass1', new_password: 'changed123' },
    bearer(u.token),
  );
  t.equal(wrong.status, 401);
  t.same(wrong.body.error, { code: 'WRONG_PASSWORD', message: 'The current password is wrong.' });
  const weak = await c.post(
    '/console/api/me/password',
    { current_password: 'password123', new_password: 'weak' },
    bearer(u.token),
  );
  t.equal(weak.status, 400);
  const res = await c.post(
    '/console/api/me/password',
    { current_password: 'password123', new_password: 'changed123' },
    bearer(u.token),
  );
  t.equal(res.status, 200);
  t.same(res.body, { changed: true, signed_out_sessions: 1, notice_mailed: true });
  const notice = await sink.next();
  t.equal(notice.subject, 'Your Tollgate password was changed');
  t.equal((await c.get('/console/api/me', bearer(u.token))).status, 200);
  t.equal((await c.get('/console/api/me', bearer(other))).status, 401);
  t.equal((await login(u.email, 'changed123')).status, 200);
  const anon = await c.post('/console/api/me/password', { current_password: 'x', new_password: 'changed456' });
  t.equal(anon.status, 401);
});

t.test('sessions: list marks the current one; end one; end all others', async (t) => {
  const u = await register();
  const second = (await login(u.email, 'password123')).body.token;
  const list = await c.get('/console/api/me/sessions', bearer(u.token));
  t.equal(list.status, 200);
  t.equal(list.body.items.length, 2);
  t.same(
    list.body.items.map((s: { current: boolean }) => s.current),
    [false, true],
  );
  const del = await c.request(`/console/api/me/sessions/${list.body.items[0].id}`, {
    method: 'DELETE',
    headers: bearer(u.token),
  });
  t.same(del.body, { revoked: true });
  t.equal((await c.get('/console/api/me', bearer(second))).status, 401);
  const third = (await login(u.email, 'password123')).body.token;
  const others = await c.post('/console/api/me/sessions/revoke-others', {}, bearer(u.token));
  t.same(others.body, { revoked: 1 });
  t.equal((await c.get('/console/api/me', bearer(third))).status, 401);
  const notMine = await c.request('/console/api/me/sessions/999999', { method: 'DELETE', headers: bearer(u.token) });
  t.equal(notMine.status, 404);
});

t.test('admin reset: generated password shown once, or a chosen one; every session of the user ends', async (t) => {
  const a = await admin(h);
  const u = await register();
  const gen = await c.post(`/console/api/admin/users/${u.id}/password`, {}, a.headers);
  t.equal(gen.status, 200);
  t.match(gen.body, { reset: true, signed_out_sessions: 1 });
  t.match(gen.body.password, /^[A-Za-z0-9]{16}$/);
  t.equal((await c.get('/console/api/me', bearer(u.token))).status, 401);
  t.equal((await login(u.email, gen.body.password)).status, 200);
  const chosen = await c.post(`/console/api/admin/users/${u.id}/password`, { password: 'chosen1234' }, a.headers);
  t.same(chosen.body, { reset: true, signed_out_sessions: 1 });
  t.equal((await login(u.email, 'chosen1234')).status, 200);
  const trail = await h.services.store.db
    .selectFrom('audit_log')
    .selectAll()
    .where('action', '=', 'user.password_reset')
    .where('subject_user_id', '=', u.id)
    .orderBy('id')
    .execute();
  t.equal(trail.length, 2);
  t.match(trail[0], { actor_id: a.userId, actor_role: 'admin' });
  t.same(JSON.parse(String(trail[0].detail)), { generated: true, signed_out_sessions: 1 });
  t.equal((await c.post(`/console/api/admin/users/${u.id}/password`, { password: 'weak' }, a.headers)).status, 400);
  t.equal((await c.post('/console/api/admin/users/999999/password', {}, a.headers)).status, 404);
  const notAdmin = await c.post(
    `/console/api/admin/users/${u.id}/password`,
    {},
    bearer((await login(u.email, 'chosen1234')).body.token),
  );
  t.equal(notAdmin.status, 403);
});

t.test(
  'admin mail tools: the outbox lists every mail with its outcome; a refused test mail is 502 MAIL_FAILED',
  async (t) => {
    const a = await admin(h);
    const ok = await c.post('/console/api/admin/mail/test', { to: 'ops@example.com' }, a.headers);
    t.equal(ok.status, 200);
    t.match(ok.body, { sent: true, transport: 'smtp' });
    t.equal((await sink.next()).subject, 'Tollgate test mail');
    sink.refuse = true;
    const failed = await c.post('/console/api/admin/mail/test', { to: 'ops@example.com' }, a.headers);
    sink.refuse = false;
    t.equal(failed.status, 502);
    t.equal(failed.body.error.code, 'MAIL_FAILED');
    const list = await c.get('/console/api/admin/mail?limit=2', a.headers);
    t.equal(list.status, 200);
    t.equal(list.body.transport, 'smtp');
    t.match(list.body.items[0], {
      to: 'ops@example.com',
      subject: 'Tollgate test mail',
      status: 'failed',
      transport: 'smtp',
    });
    t.match(list.body.items[0].error, /550|unavailable/);
    t.match(list.body.items[1], { status: 'sent' });
    t.type(list.body.next_before, 'number');
  },
);

t.test('the per-IP budget of reset requests answers 429 with Retry-After', async (t) => {
  let last = 0;
  let retry: string | undefined;
  for (let i = 0; i < 15; i++) {
    const r = await c.post('/console/api/password/forgot', { email: `flood${i}@example.com` });
    last = r.status;
    retry = r.headers['retry-after'];
    if (last === 429) {
      t.equal(r.body.error.code, 'TOO_MANY_ATTEMPTS');
      break;
    }
  }
  t.equal(last, 429);
  t.ok(Number(retry) >= 1);
});
