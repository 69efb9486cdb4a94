// Console sessions that survive tabs and restarts: "remember me" asks for a long-lived token
// (USER_TOKEN_REMEMBER_HOURS), without it the token lives USER_TOKEN_TTL_HOURS; an expired token is refused; and
// "sign out everywhere" ends every session of the user, this one included, and nobody else's.
import t from 'tap';
import { sha256Hex } from '../../core/accounts/secrets.js';
import { readAccountSettings } from '../../core/config/account-env.js';
import { createTestApp, type TestApp } from '../helpers/create-test-app.js';
import { bearer } from './support.js';

const HOUR = 3600_000;
let h: TestApp;
t.before(async () => {
  h = await createTestApp({
    settings: { userTokenTtlHours: 12, accounts: readAccountSettings({ USER_TOKEN_REMEMBER_HOURS: '720' }, 8080) },
  });
});
t.teardown(() => h.close());

const expiresOf = async (token: string): Promise<number> =>
  Number(
    (
      await h.services.store.db
        .selectFrom('user_tokens')
        .select('expires_at')
        .where('token_hash', '=', sha256Hex(token))
        .executeTakeFirstOrThrow()
    ).expires_at,
  );

t.test('remember: true gives a 30-day token, without it the session-length one; the answer says which', async (t) => {
  const reg = await h.client.post('/console/api/register', {
    email: 'stay@example.com',
    password: 'secret123',
    remember: true,
  });
  t.equal(reg.status, 201);
  t.equal(reg.body.remember, true);
  const regExpiry = await expiresOf(reg.body.token);
  t.equal(reg.body.expires_at, new Date(regExpiry).toISOString(), 'expires_at is the stored expiry');
  t.ok(Math.abs(regExpiry - (Date.now() + 720 * HOUR)) < 60_000, '720 hours from now');

  const short = await h.client.post('/console/api/login', { email: 'stay@example.com', password: 'secret123' });
  t.equal(short.status, 200);
  t.equal(short.body.remember, false);
  t.ok(
    Math.abs((await expiresOf(short.body.token)) - (Date.now() + 12 * HOUR)) < 60_000,
    'USER_TOKEN_TTL_HOURS (12 here) from now',
  );

  const long = await h.client.post('/console/api/login', {
    email: 'stay@example.com',
    password: 'secret123',
    remember: true,
  });
  t.equal(long.body.remember, true);
  t.ok(Math.abs((await expiresOf(long.body.token)) - (Date.now() + 720 * HOUR)) < 60_000);

  const bad = await h.client.post('/console/api/login', {
    email: 'stay@example.com',
    password: 'secret123',
    remember: 'yes',
  });
  t.equal(bad.status, 400);
  t.same(bad.body.error, { code: 'INVALID_INPUT', message: "'remember' must be true or false." });
});

t.test('an expired token is refused with a message that says so', async (t) => {
  const reg = await h.client.post('/console/api/register', {
    email: 'old@example.com',
    password: 'secret123',
    remember: true,
  });
  await h.services.store.db
    .updateTable('user_tokens')
    .set({ expires_at: Date.now() - 1 })
    .where('token_hash', '=', sha256Hex(reg.body.token))
    .execute();
  const me = await h.client.get('/console/api/me', bearer(reg.body.token));
  t.equal(me.status, 401);
  t.same(me.body.error, { code: 'UNAUTHORIZED', message: 'The user token has expired. Log in again.' });
});

t.test("sign out everywhere ends every session of the user, this one too, and no one else's", async (t) => {
  const a = await h.client.post('/console/api/register', {
    email: 'many@example.com',
    password: 'secret123',
    remember: true,
  });
  const b = await h.client.post('/console/api/login', { email: 'many@example.com', password: 'secret123' });
  const c = await h.client.post('/console/api/login', {
    email: 'many@example.com',
    password: 'secret123',
    remember: true,
  });
  const other = await h.client.post('/console/api/register', { email: 'bystander@example.com', password: 'secret123' });
  const listed = await h.client.get('/console/api/me/sessions', bearer(b.body.token));
  t.equal(listed.body.items.length, 3);
  t.same(
    listed.body.items.map((s: { current: boolean }) => s.current),
    [false, true, false],
    'newest first, the asking session marked',
  );

  const res = await h.client.post('/console/api/me/sessions/revoke-all', {}, bearer(b.body.token));
  t.equal(res.status, 200);
  t.same(res.body, { revoked: 3 });
  for (const token of [a.body.token, b.body.token, c.body.token]) {
    const me = await h.client.get('/console/api/me', bearer(token));
    t.equal(me.status, 401);
    t.same(me.body.error, { code: 'UNAUTHORIZED', message: 'The user token was revoked (logged out). Log in again.' });
  }
  t.equal(
    (await h.client.get('/console/api/me', bearer(other.body.token))).status,
    200,
    'another user keeps their session',
  );
  const again = await h.client.post('/console/api/me/sessions/revoke-all', {}, bearer(a.body.token));
  t.equal(again.status, 401, 'a revoked token cannot sign out again');
  t.equal((await h.client.post('/console/api/me/sessions/revoke-all', {})).status, 401);
});

t.test('the 2FA step carries remember too', async (t) => {
  const { generate } = await import('otplib');
  const reg = await h.client.post('/console/api/register', { email: 'tf@example.com', password: 'secret123' });
  const setup = await h.client.post('/console/api/me/2fa/setup', { password: 'secret123' }, bearer(reg.body.token));
  const now = Math.floor(Date.now() / 1000);
  await h.client.post(
    '/console/api/me/2fa/enable',
    { code: await generate({ secret: setup.body.secret, epoch: now - 30 }) },
    bearer(reg.body.token),
  );
  const step1 = await h.client.post('/console/api/login', {
    email: 'tf@example.com',
    password: 'secret123',
    remember: true,
  });
  t.equal(step1.body.two_factor_required, true);
  const step2 = await h.client.post('/console/api/login/2fa', {
    challenge: step1.body.challenge,
    code: await generate({ secret: setup.body.secret, epoch: now }),
    remember: true,
  });
  t.equal(step2.status, 200);
  t.equal(step2.body.remember, true);
  t.ok(Math.abs((await expiresOf(step2.body.token)) - (Date.now() + 720 * HOUR)) < 60_000);
});
