// TOTP 2FA: enrolment, the two-step login, replay and recovery codes, turning it off, and the operator switch
// that requires it for admins.

import { generate } from 'otplib';
import QRCode from 'qrcode';
import t from 'tap';
import { readAccountSettings } from '../../core/config/account-env.js';
import { createTestApp, type TestApp } from '../helpers/create-test-app.js';
import { admin, bearer } from './support.js';

let h: TestApp;
t.before(async () => {
  h = await createTestApp({
    settings: { trustProxy: { hops: 1 }, accounts: readAccountSettings({ REQUIRE_ADMIN_2FA: 'true' }, 8080) },
  });
});
t.teardown(() => h.close());

let ipSeq = 0;
let ip = '10.8.0.1';
t.beforeEach(() => {
  ip = `10.8.${++ipSeq}.1`;
});
const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  h.client.post(path, body, { 'x-forwarded-for': ip, ...headers });
const get = (path: string, headers: Record<string, string> = {}) =>
  h.client.get(path, { 'x-forwarded-for': ip, ...headers });
/** The code an authenticator app shows `offset` seconds from now. */
const code = (secret: string, offset = 0) => generate({ secret, epoch: Math.floor(Date.now() / 1000) + offset });

let seq = 0;
async function enrolled(): Promise<{
  email: string;
  token: string;
  secret: string;
  recovery: string[];
  enrolCode: string;
}> {
  const email = `tf${++seq}@example.com`;
  const reg = await post('/console/api/register', { email, password: 'password123' });
  const token = reg.body.token as string;
  const setup = await post('/console/api/me/2fa/setup', { password: 'password123' }, bearer(token));
  const secret = setup.body.secret as string;
  const enrolCode = await code(secret);
  const on = await post('/console/api/me/2fa/enable', { code: enrolCode }, bearer(token));
  return { email, token, secret, recovery: on.body.recovery_codes, enrolCode };
}

t.test('enrolment: password first, secret + otpauth URI, confirmed by a code, 10 recovery codes once', async (t) => {
  const reg = await post('/console/api/register', { email: 'enrol@example.com', password: 'password123' });
  const auth = bearer(reg.body.token);
  t.equal((await post('/console/api/me/2fa/setup', { password: 'wrong12345' }, auth)).status, 401);
  const early = await post('/console/api/me/2fa/enable', { code: '123456' }, auth);
  t.equal(early.status, 409);
  const setup = await post('/console/api/me/2fa/setup', { password: 'password123' }, auth);
  t.equal(setup.status, 200);
  t.match(setup.body.secret, /^[A-Z2-7]{32}$/);
  t.equal(
    setup.body.otpauth_uri,
    `otpauth://totp/Tollgate:enrol%40example.com?secret=${setup.body.secret}&issuer=Tollgate`,
  );
  // The same URI as a QR code to scan: exactly what the qrcode package draws for it.
  t.equal(
    setup.body.qr_svg,
    await QRCode.toString(setup.body.otpauth_uri, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' }),
  );
  t.match(setup.body.qr_svg, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  const wrong = await post('/console/api/me/2fa/enable', { code: '000000' }, auth);
  t.equal(wrong.status, 401);
  const on = await post('/console/api/me/2fa/enable', { code: await code(setup.body.secret) }, auth);
  t.equal(on.status, 200);
  t.equal(on.body.enabled, true);
  t.equal(on.body.recovery_codes.length, 10);
  for (const c of on.body.recovery_codes) t.match(c, /^[a-z0-9]{5}-[a-z0-9]{5}$/);
  // Only hashes at rest.
  const stored = await h.services.store.db.selectFrom('recovery_codes').select('code_hash').execute();
  t.notOk(stored.some((r) => on.body.recovery_codes.some((c: string) => r.code_hash.includes(c.replace('-', '')))));
  const sec = await get('/console/api/me/security', auth);
  t.match(sec.body.two_factor, { enabled: true, recovery_codes_left: 10 });
  t.equal((await post('/console/api/me/2fa/setup', { password: 'password123' }, auth)).status, 409);
  const trail = await h.services.store.db
    .selectFrom('audit_log')
    .select(['action', 'actor_id'])
    .where('subject_user_id', '=', reg.body.user.id)
    .execute();
  t.same(trail, [{ action: 'account.2fa_enable', actor_id: reg.body.user.id }]);
});

t.test('login with 2FA: a challenge, then the code; a used code and a wrong code are refused', async (t) => {
  const u = await enrolled();
  const step1 = await post('/console/api/login', { email: u.email, password: 'password123' });
  t.equal(step1.status, 200);
  t.equal(step1.body.two_factor_required, true);
  t.match(step1.body.challenge, /^tf_[A-Za-z0-9_-]{43}$/);
  t.notOk('token' in step1.body);
  const wrong = await post('/console/api/login/2fa', { challenge: step1.body.challenge, code: '000000' });
  t.equal(wrong.status, 401);
  t.same(wrong.body.error, { code: 'WRONG_2FA_CODE', message: 'Wrong authentication code.' });
  // The code used at enrolment is spent (its step, and every earlier one, is refused from now on).
  const replay = await post('/console/api/login/2fa', { challenge: step1.body.challenge, code: u.enrolCode });
  t.equal(replay.status, 401);
  const next = await code(u.secret, 30);
  const ok = await post('/console/api/login/2fa', { challenge: step1.body.challenge, code: next });
  t.equal(ok.status, 200);
  t.match(ok.body.token, /^ut_/);
  t.equal((await get('/console/api/me', bearer(ok.body.token))).status, 200);
  // The challenge is single-use, and a bad one is INVALID_TOKEN.
  const again = await post('/console/api/login/2fa', {
    challenge: step1.body.challenge,
    code: await code(u.secret, 30),
  });
  t.equal(again.status, 400);
  t.equal(again.body.error.code, 'INVALID_TOKEN');
  t.equal(
    (await post('/console/api/login/2fa', { challenge: 'tf_nope', code: '123456' })).body.error.code,
    'INVALID_TOKEN',
  );
});

t.test(
  'recovery codes work once each; regenerating replaces them; turning 2FA off needs password and code',
  async (t) => {
    const u = await enrolled();
    const challenge = async () =>
      (await post('/console/api/login', { email: u.email, password: 'password123' })).body.challenge as string;
    const r1 = await post('/console/api/login/2fa', {
      challenge: await challenge(),
      code: u.recovery[0].toUpperCase(),
    });
    t.equal(r1.status, 200);
    t.equal((await post('/console/api/login/2fa', { challenge: await challenge(), code: u.recovery[0] })).status, 401);
    t.match((await get('/console/api/me/security', bearer(u.token))).body.two_factor, { recovery_codes_left: 9 });
    const fresh = await post('/console/api/me/2fa/recovery-codes', { code: u.recovery[1] }, bearer(u.token));
    t.equal(fresh.body.recovery_codes.length, 10);
    t.equal((await post('/console/api/login/2fa', { challenge: await challenge(), code: u.recovery[2] })).status, 401);
    const badPw = await post(
      '/console/api/me/2fa/disable',
      { password: 'nope12345', code: fresh.body.recovery_codes[0] },
      bearer(u.token),
    );
    t.equal(badPw.status, 401);
    const off = await post(
      '/console/api/me/2fa/disable',
      { password: 'password123', code: fresh.body.recovery_codes[0] },
      bearer(u.token),
    );
    t.same(off.body, { enabled: false });
    const plain = await post('/console/api/login', { email: u.email, password: 'password123' });
    t.match(plain.body.token, /^ut_/);
  },
);

t.test('REQUIRE_ADMIN_2FA: admin routes are 403 until the admin turns 2FA on; it cannot be turned off', async (t) => {
  const a = await admin(h);
  const blocked = await get('/console/api/admin/mail', a.headers);
  t.equal(blocked.status, 403);
  t.equal(blocked.body.error.code, 'TWO_FACTOR_REQUIRED');
  t.match((await get('/console/api/me/security', a.headers)).body, { two_factor_required: true });
  const setup = await post('/console/api/me/2fa/setup', { password: 'password123' }, a.headers);
  const on = await post('/console/api/me/2fa/enable', { code: await code(setup.body.secret) }, a.headers);
  t.equal(on.status, 200);
  t.equal((await get('/console/api/admin/mail', a.headers)).status, 200);
  const off = await post(
    '/console/api/me/2fa/disable',
    { password: 'password123', code: on.body.recovery_codes[0] },
    a.headers,
  );
  t.equal(off.status, 403);
  t.equal(off.body.error.code, 'TWO_FACTOR_REQUIRED');
});

t.test("an admin can turn off a user's 2FA (lost device)", async (t) => {
  const u = await enrolled();
  const a = await admin(h);
  const setup = await post('/console/api/me/2fa/setup', { password: 'password123' }, a.headers);
  await post('/console/api/me/2fa/enable', { code: await code(setup.body.secret) }, a.headers);
  const userId = (await get('/console/api/me', bearer(u.token))).body.user.id;
  const res = await post(`/console/api/admin/users/${userId}/2fa/disable`, {}, a.headers);
  t.same(res.body, { enabled: false });
  t.match((await post('/console/api/login', { email: u.email, password: 'password123' })).body.token, /^ut_/);
});
