// Register, login, logout: tokens are random, stored hashed, expire and are revoked at once; failed logins
// are throttled per IP + email (test/security/accounts-*.test.ts has the lockout cases); a disabled user can neither
// log in nor use keys.
import t from 'tap';
import { FREE_FAILURES, lockSeconds, loginVerdict, recordLoginFailure } from '../../core/accounts/login-throttle.js';
import { sha256Hex } from '../../core/accounts/secrets.js';
import { createTestApp, type TestApp } from '../helpers/create-test-app.js';
import { admin, bearer } from './support.js';

let h: TestApp;
t.before(async () => {
  h = await createTestApp();
});
t.afterEach(() => h.assertReconciled());
t.teardown(() => h.close());

t.test('register -> 201 {token, user}; the token works and only its hash is stored', async (t) => {
  const res = await h.client.post('/console/api/register', { email: ' Alice@Example.com ', password: 'secret123' });
  t.equal(res.status, 201);
  t.match(res.body.token, /^ut_[A-Za-z0-9_-]{43}$/);
  t.match(res.body.user, { email: 'alice@example.com', role: 'user', status: 'active' });
  t.type(res.body.user.id, 'number');
  t.notOk('password_hash' in res.body.user);
  const stored = await h.services.store.db
    .selectFrom('user_tokens')
    .selectAll()
    .where('user_id', '=', res.body.user.id)
    .execute();
  t.equal(stored.length, 1);
  t.equal(stored[0].token_hash, sha256Hex(res.body.token));
  const me = await h.client.get('/console/api/me', bearer(res.body.token));
  t.equal(me.status, 200);
  t.same(me.body, { user: res.body.user, balance: 0, available: 0, plan: null, quota: null });
});

t.test('register errors: taken email 409, weak password 400, bad email 400, unknown field 400', async (t) => {
  await h.client.post('/console/api/register', { email: 'bob@example.com', password: 'secret123' });
  const taken = await h.client.post('/console/api/register', { email: 'BOB@example.com', password: 'secret456' });
  t.equal(taken.status, 409);
  t.same(taken.body.error, {
    code: 'CONFLICT',
    message: 'This email cannot be registered with this password. If the account is yours, log in.',
  });
  const weak = await h.client.post('/console/api/register', { email: 'weak@example.com', password: 'short1' });
  t.equal(weak.status, 400);
  t.same(weak.body.error, { code: 'INVALID_INPUT', message: 'Weak password: password must be at least 8 characters.' });
  const letters = await h.client.post('/console/api/register', { email: 'weak@example.com', password: 'onlyletters' });
  t.equal(letters.body.error.message, 'Weak password: password must contain letters and digits.');
  const bad = await h.client.post('/console/api/register', { email: 'not-an-email', password: 'secret123' });
  t.equal(bad.status, 400);
  t.same(bad.body.error, {
    code: 'INVALID_INPUT',
    message: "'email' is not a valid email address (expected name@domain).",
  });
  const extra = await h.client.post('/console/api/register', {
    email: 'x@example.com',
    password: 'secret123',
    role: 'admin',
  });
  t.equal(extra.status, 400);
  t.equal(extra.body.error.message, "Unknown field 'role'; allowed: email, password, locale, remember.");
  const missing = await h.client.post('/console/api/register', { email: 'x@example.com' });
  t.equal(missing.body.error.message, "'password' is required and must be a non-empty string.");
  const notJson = await h.client.request('/console/api/register', {
    method: 'POST',
    body: '{nope',
    headers: { 'content-type': 'application/json' },
  });
  t.equal(notJson.status, 400);
  t.equal(notJson.body.error.code, 'INVALID_INPUT');
});

t.test('login -> 200 {token, user}; wrong password 401; logout revokes the token at once', async (t) => {
  await h.client.post('/console/api/register', { email: 'carol@example.com', password: 'secret123' });
  const wrong = await h.client.post('/console/api/login', { email: 'carol@example.com', password: 'secret999' });
  t.equal(wrong.status, 401);
  t.same(wrong.body.error, { code: 'INVALID_CREDENTIALS', message: 'Wrong email or password.' });
  const unknown = await h.client.post('/console/api/login', { email: 'nobody@example.com', password: 'secret123' });
  t.same(unknown.body.error, wrong.body.error, 'unknown email answers like a wrong password');
  const res = await h.client.post('/console/api/login', { email: 'CAROL@example.com', password: 'secret123' });
  t.equal(res.status, 200);
  t.match(res.body, { token: /^ut_/, user: { email: 'carol@example.com', role: 'user' } });
  const headers = bearer(res.body.token);
  t.equal((await h.client.get('/console/api/keys', headers)).status, 200);
  const out = await h.client.post('/console/api/logout', {}, headers);
  t.equal(out.status, 200);
  t.same(out.body, { logged_out: true });
  const after = await h.client.get('/console/api/keys', headers);
  t.equal(after.status, 401);
  t.same(after.body.error, { code: 'UNAUTHORIZED', message: 'The user token was revoked (logged out). Log in again.' });
});

t.test('missing, malformed, unknown and expired tokens are 401', async (t) => {
  const none = await h.client.get('/console/api/me');
  t.equal(none.status, 401);
  t.equal(none.body.error.code, 'UNAUTHORIZED');
  const malformed = await h.client.get('/console/api/me', bearer('abc'));
  t.equal(malformed.body.error.message, 'The user token is not valid: tokens look like ut_ followed by 43 characters.');
  const unknown = await h.client.get('/console/api/me', bearer(`ut_${'a'.repeat(43)}`));
  t.equal(unknown.status, 401);
  t.equal(unknown.body.error.message, 'The user token is not valid. Log in again.');
  const reg = await h.client.post('/console/api/register', { email: 'dave@example.com', password: 'secret123' });
  await h.services.store.db
    .updateTable('user_tokens')
    .set({ expires_at: Date.now() - 1 })
    .where('token_hash', '=', sha256Hex(reg.body.token))
    .execute();
  const expired = await h.client.get('/console/api/me', bearer(reg.body.token));
  t.equal(expired.status, 401);
  t.same(expired.body.error, { code: 'UNAUTHORIZED', message: 'The user token has expired. Log in again.' });
});

t.test('tokens expire after settings.userTokenTtlHours', async (t) => {
  const before = Date.now();
  const reg = await h.client.post('/console/api/register', { email: 'ttl@example.com', password: 'secret123' });
  const expires = Date.parse(reg.body.expires_at);
  const ttl = h.services.settings.userTokenTtlHours * 3600_000;
  t.ok(expires >= before + ttl && expires <= Date.now() + ttl);
});

t.test(
  'failed logins: after 5 failures from one IP that IP waits (429 with Retry-After), even with the right password',
  async (t) => {
    await h.client.post('/console/api/register', { email: 'eve@example.com', password: 'secret123' });
    for (let i = 0; i < FREE_FAILURES; i++) {
      const r = await h.client.post('/console/api/login', { email: 'eve@example.com', password: `wrong${i}xx` });
      t.equal(r.status, 401, `failure ${i + 1} is a plain 401`);
    }
    const locked = await h.client.post('/console/api/login', { email: 'eve@example.com', password: 'secret123' });
    t.equal(locked.status, 429);
    t.equal(locked.body.error.code, 'TOO_MANY_ATTEMPTS');
    t.equal(locked.headers['retry-after'], '30');
    t.equal(locked.body.error.message, 'Too many failed logins for this email from this address. Retry in 30 seconds.');
    const other = await h.client.post('/console/api/login', { email: 'carol@example.com', password: 'secret123' });
    t.equal(other.status, 200, 'other emails are not affected');
  },
);

t.test('the lockout grows with each further failure and a success clears the count', async (t) => {
  const db = h.services.store.db;
  t.same([4, 5, 6, 7, 8, 20].map(lockSeconds), [0, 30, 60, 120, 240, 900]);
  const email = 'grow@example.com';
  const ip = '198.51.100.77';
  const t0 = 1_700_000_000_000;
  const wait = async (at: number) => (await loginVerdict(db, ip, email, undefined, at)).wait;
  for (let i = 0; i < 5; i++) await recordLoginFailure(db, ip, email, t0);
  t.equal(await wait(t0), 30);
  t.equal(await wait(t0 + 30_000), 0, 'allowed again after the lockout');
  await recordLoginFailure(db, ip, email, t0 + 30_000);
  t.equal(await wait(t0 + 30_000), 60, 'sixth failure: 60 s');
  await recordLoginFailure(db, ip, email, t0 + 90_000);
  t.equal(await wait(t0 + 90_000), 120, 'seventh failure: 120 s');
  await recordLoginFailure(db, ip, email, t0 + 90_000 + 16 * 60_000);
  t.equal(await wait(t0 + 90_000 + 16 * 60_000), 0, 'a failure after 15 quiet minutes starts over');

  await h.client.post('/console/api/register', { email: 'frank@example.com', password: 'secret123' });
  for (let i = 0; i < 4; i++)
    await h.client.post('/console/api/login', { email: 'frank@example.com', password: 'nope12345' });
  t.equal(
    (await h.client.post('/console/api/login', { email: 'frank@example.com', password: 'secret123' })).status,
    200,
  );
  t.equal(
    await db
      .selectFrom('login_attempts')
      .select('failures')
      .where('scope', '=', 'ipacct:127.0.0.1|frank@example.com')
      .executeTakeFirst(),
    undefined,
  );
});

t.test('a disabled user cannot log in, their tokens stop and their keys stop at once', async (t) => {
  const a = await admin(h);
  const u = await h.user('1', { email: 'gina@example.com' });
  const login = await h.client.post('/console/api/login', { email: 'gina@example.com', password: 'password123' });
  t.equal(login.status, 200);
  t.equal((await h.client.get('/api/echo?msg=1', { 'X-API-Key': u.key })).status, 200, 'key works and is cached');
  const dis = await h.client.request(`/console/api/admin/users/${u.userId}`, {
    method: 'PATCH',
    body: { status: 'disabled' },
    headers: a.headers,
  });
  t.equal(dis.status, 200);
  t.equal(dis.body.user.status, 'disabled');
  const call = await h.client.get('/api/echo?msg=2', { 'X-API-Key': u.key });
  t.equal(call.status, 403);
  t.same(call.body.error, { code: 'KEY_DISABLED', message: 'The account this API key belongs to is disabled.' });
  t.equal(call.body.deducted, 0);
  const again = await h.client.post('/console/api/login', { email: 'gina@example.com', password: 'password123' });
  t.equal(again.status, 403);
  t.same(again.body.error, { code: 'ACCOUNT_DISABLED', message: 'This account is disabled.' });
  t.equal((await h.client.get('/console/api/me', bearer(login.body.token))).status, 401, 'sessions were revoked');
  const en = await h.client.request(`/console/api/admin/users/${u.userId}`, {
    method: 'PATCH',
    body: { status: 'active' },
    headers: a.headers,
  });
  t.equal(en.body.user.status, 'active');
  t.equal((await h.client.get('/api/echo?msg=3', { 'X-API-Key': u.key })).status, 200, 'enabled again');
  t.same(await h.balance(u.userId), { balance: 980_000, held: 0 });
});
