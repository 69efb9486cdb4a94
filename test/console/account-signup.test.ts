// Sign-up switches: registration off, an email-domain allow-list, and email verification (links read from the
// outbox table: no SMTP configured, as on a fresh machine).
import t from 'tap';
import { localeFromAcceptLanguage } from '../../core/accounts/locale.js';
import { signUpRefusal } from '../../core/accounts/sign-up-policy.js';
import { readAccountSettings } from '../../core/config/account-env.js';
import { createTestApp, type TestApp } from '../helpers/create-test-app.js';
import { bearer } from './support.js';

async function app(env: Record<string, string>): Promise<TestApp> {
  return createTestApp({ settings: { accounts: readAccountSettings(env, 8080) } });
}

async function outboxLink(h: TestApp, to: string, page: 'verify' | 'reset'): Promise<string> {
  const row = await h.services.store.db
    .selectFrom('mail_outbox')
    .selectAll()
    .where('to_addr', '=', to)
    .orderBy('id', 'desc')
    .executeTakeFirstOrThrow();
  const m = new RegExp(`/console/${page}\\?token=([a-z]{2}_[A-Za-z0-9_-]{43})`).exec(row.text_body);
  if (!m) throw new Error(`no ${page} link in ${row.text_body}`);
  return m[1];
}

t.test('REGISTRATION=closed: sign-up is 403 REGISTRATION_CLOSED and creates nothing', async (t) => {
  const h = await app({ REGISTRATION: 'closed' });
  t.teardown(() => h.close());
  const res = await h.client.post('/console/api/register', { email: 'new@example.com', password: 'password123' });
  t.equal(res.status, 403);
  t.same(res.body.error, {
    code: 'REGISTRATION_CLOSED',
    message: 'Sign-up is closed on this server. Ask the operator for an account.',
  });
  t.equal((await h.services.store.db.selectFrom('users').selectAll().execute()).length, 0);
});

t.test('REGISTRATION_EMAIL_DOMAINS: only listed domains (and their subdomains) may sign up', async (t) => {
  const h = await app({ REGISTRATION_EMAIL_DOMAINS: 'corp.example.com, example.cn' });
  t.teardown(() => h.close());
  const out = await h.client.post('/console/api/register', { email: 'x@gmail.com', password: 'password123' });
  t.equal(out.status, 403);
  t.same(out.body.error, {
    code: 'EMAIL_DOMAIN_NOT_ALLOWED',
    message: 'Sign-up is limited to addresses at corp.example.com, example.cn.',
  });
  // A look-alike suffix is not a subdomain.
  t.equal(
    (await h.client.post('/console/api/register', { email: 'x@evilcorp.example.com', password: 'password123' })).status,
    403,
  );
  t.equal(
    (await h.client.post('/console/api/register', { email: 'a@corp.example.com', password: 'password123' })).status,
    201,
  );
  t.equal(
    (await h.client.post('/console/api/register', { email: 'b@mail.example.cn', password: 'password123' })).status,
    201,
  );
});

t.test('REQUIRE_EMAIL_VERIFICATION: no session until the mailed link is followed; the link works once', async (t) => {
  const h = await app({ REQUIRE_EMAIL_VERIFICATION: 'true', PUBLIC_URL: 'https://api.example.com/' });
  t.teardown(() => h.close());
  const reg = await h.client.post('/console/api/register', {
    email: 'v@example.com',
    password: 'password123',
    locale: 'zh',
  });
  t.equal(reg.status, 201);
  t.same(reg.body, { verification_required: true, mail_sent: true });
  t.notOk('token' in reg.body);
  const mail = await h.services.store.db.selectFrom('mail_outbox').selectAll().executeTakeFirstOrThrow();
  t.match(mail, { to_addr: 'v@example.com', subject: '确认您的 Tollgate 邮箱', transport: 'outbox', status: 'queued' });
  t.match(mail.text_body, /^欢迎！/);
  t.match(mail.text_body, 'https://api.example.com/console/verify?token=vt_');

  const early = await h.client.post('/console/api/login', { email: 'v@example.com', password: 'password123' });
  t.equal(early.status, 403);
  t.equal(early.body.error.code, 'EMAIL_NOT_VERIFIED');

  // Resend: same answer for unknown addresses; a second link for the waiting one.
  const unknown = await h.client.post('/console/api/email/verify/resend', { email: 'ghost@example.com' });
  const known = await h.client.post('/console/api/email/verify/resend', { email: 'v@example.com' });
  t.equal(unknown.status, 202);
  t.same(unknown.body, known.body);
  await new Promise((r) => setTimeout(r, 200));
  t.equal((await h.services.store.db.selectFrom('mail_outbox').selectAll().execute()).length, 2);

  const token = await outboxLink(h, 'v@example.com', 'verify');
  const ok = await h.client.post('/console/api/email/verify', { token });
  t.same(ok.body, { verified: true });
  t.equal((await h.client.post('/console/api/email/verify', { token })).body.error.code, 'INVALID_TOKEN');
  const login = await h.client.post('/console/api/login', { email: 'v@example.com', password: 'password123' });
  t.equal(login.status, 200);
  const sec = await h.client.get('/console/api/me/security', bearer(login.body.token));
  t.match(sec.body, { email_verified: true, locale: 'zh', two_factor: { enabled: false } });
  const set = await h.client.request('/console/api/me/security', {
    method: 'PATCH',
    body: { locale: 'en' },
    headers: bearer(login.body.token),
  });
  t.same(set.body, { locale: 'en' });
  const bad = await h.client.request('/console/api/me/security', {
    method: 'PATCH',
    body: { locale: 'fr' },
    headers: bearer(login.body.token),
  });
  t.equal(bad.status, 400);
});

t.test('settings and helpers: bad switch values fail at start; Accept-Language picks by q', async (t) => {
  t.throws(() => readAccountSettings({ REGISTRATION: 'maybe' }, 8080), /REGISTRATION must be open or closed/);
  t.throws(() => readAccountSettings({ REQUIRE_ADMIN_2FA: 'yes please' }, 8080), /REQUIRE_ADMIN_2FA/);
  t.throws(
    () => readAccountSettings({ REGISTRATION_EMAIL_DOMAINS: 'not a domain' }, 8080),
    /REGISTRATION_EMAIL_DOMAINS/,
  );
  t.equal(readAccountSettings({}, 9000).publicUrl, 'http://localhost:9000');
  t.equal(signUpRefusal(readAccountSettings({}, 1), 'a@b.com'), null);
  t.equal(localeFromAcceptLanguage('en;q=0.4, zh-TW;q=0.8'), 'zh');
  t.equal(localeFromAcceptLanguage('fr, de'), null);
  t.equal(localeFromAcceptLanguage('zh;q=0, en'), 'en');
});

t.test('with verification on, sign-up with a known email answers like a new one and mails the owner', async (t) => {
  const h = await app({ REQUIRE_EMAIL_VERIFICATION: 'true', PUBLIC_URL: 'https://api.example.com/' });
  t.teardown(() => h.close());
  const db = h.services.store.db;
  const fresh = await h.client.post('/console/api/register', { email: 'owner@example.com', password: 'password123' });
  t.equal(fresh.status, 201);
  const users = async () => (await db.selectFrom('users').select('id').execute()).length;
  const before = await users();
  for (const password of ['other-pass-99', 'password123']) {
    const again = await h.client.post('/console/api/register', { email: 'owner@example.com', password });
    t.equal(again.status, fresh.status, password);
    t.same(again.body, fresh.body, 'the very answer of a new sign-up');
  }
  t.equal(await users(), before, 'no account created');
  const mails = await db
    .selectFrom('mail_outbox')
    .select(['to_addr', 'subject', 'text_body'])
    .where('to_addr', '=', 'owner@example.com')
    .orderBy('id')
    .execute();
  t.same(
    mails.map((m) => m.subject),
    [
      'Confirm your email for Tollgate',
      'Someone tried to sign up to Tollgate with your email',
      'Someone tried to sign up to Tollgate with your email',
    ],
  );
  t.match(mails[1].text_body, /^Someone tried to create a new account with owner@example\.com/);
  // The owner is not flooded: 3 such mails a day at most, the answer unchanged.
  for (let i = 0; i < 3; i++) {
    const r = await h.client.post('/console/api/register', { email: 'owner@example.com', password: 'x-password-1' });
    t.same(r.body, fresh.body);
  }
  const count = await db.selectFrom('mail_outbox').select('id').where('to_addr', '=', 'owner@example.com').execute();
  t.equal(count.length, 4, '1 confirmation + 3 notices');
  // Without verification the documented trade-off stays: another password is 409.
  const open = await app({});
  t.teardown(() => open.close());
  t.equal(
    (await open.client.post('/console/api/register', { email: 'o@example.com', password: 'password123' })).status,
    201,
  );
  const taken = await open.client.post('/console/api/register', { email: 'o@example.com', password: 'other-pass-99' });
  t.equal(taken.status, 409);
});
