// Second-factor guessing from many addresses: each address has the login throttle, and the account has its own
// budget of wrong codes over all addresses. At the 10th wrong code the account's 2FA step locks for 15 minutes
// (even a right code waits), the pending challenges are voided and the owner is mailed.
import { generate } from 'otplib';
import t from 'tap';
import { TWO_FACTOR_FREE_FAILURES } from '../../core/accounts/two-factor-throttle.js';
import { bearer } from '../console/support.js';
import { createTestApp, type TestApp } from '../helpers/create-test-app.js';

let h: TestApp;
t.before(async () => {
  h = await createTestApp({ settings: { trustProxy: { hops: 1 } } });
});
t.teardown(() => h.close());

const from = (ip: string) => ({ 'x-forwarded-for': ip });
const codeFor = (secret: string, offset = 0) => generate({ secret, epoch: Math.floor(Date.now() / 1000) + offset });

t.test('wrong codes from 12 addresses: 10 are tried, then the account locks for every address', async (t) => {
  const email = 'guess-target@example.com';
  const reg = await h.client.post('/console/api/register', { email, password: 'password123' }, from('10.1.0.1'));
  const auth = { ...bearer(reg.body.token), ...from('10.1.0.1') };
  const setup = await h.client.post('/console/api/me/2fa/setup', { password: 'password123' }, auth);
  const secret = setup.body.secret as string;
  t.equal((await h.client.post('/console/api/me/2fa/enable', { code: await codeFor(secret) }, auth)).status, 200);
  const valid = new Set([await codeFor(secret, -30), await codeFor(secret), await codeFor(secret, 30)]);
  let n = 0;
  const wrongCode = () => {
    let c: string;
    do c = String(100000 + ((n++ * 7919) % 900000));
    while (valid.has(c));
    return c;
  };
  const login = async (ip: string) => {
    const r = await h.client.post('/console/api/login', { email, password: 'password123' }, from(ip));
    t.equal(r.body.two_factor_required, true);
    return r.body.challenge as string;
  };

  const challenge = await login('10.2.0.1');
  const statuses: number[] = [];
  for (let i = 0; i < TWO_FACTOR_FREE_FAILURES; i++) {
    const r = await h.client.post('/console/api/login/2fa', { challenge, code: wrongCode() }, from(`10.3.${i}.1`));
    statuses.push(r.status);
    t.equal(r.body.error.code, 'WRONG_2FA_CODE');
  }
  t.same(statuses, Array(TWO_FACTOR_FREE_FAILURES).fill(401), 'one try from each address, all evaluated');

  // The challenge was voided: continuing needs the password again.
  const voided = await h.client.post('/console/api/login/2fa', { challenge, code: wrongCode() }, from('10.4.0.1'));
  t.equal(voided.status, 400);
  t.equal(voided.body.error.code, 'INVALID_TOKEN');

  // A fresh challenge from yet another address: locked, even with the right code.
  const fresh = await login('10.5.0.1');
  const locked = await h.client.post(
    '/console/api/login/2fa',
    { challenge: fresh, code: await codeFor(secret) },
    from('10.6.0.1'),
  );
  t.equal(locked.status, 429);
  t.same(locked.body.error, {
    code: 'TOO_MANY_ATTEMPTS',
    message: `Too many wrong authentication codes for this account. Retry in ${locked.headers['retry-after']} seconds.`,
  });
  const wait = Number(locked.headers['retry-after']);
  t.ok(wait > 890 && wait <= 900, `about 15 minutes (${wait} s)`);

  const mails = await h.services.store.db
    .selectFrom('mail_outbox')
    .select(['to_addr', 'subject'])
    .where('to_addr', '=', email)
    .execute();
  t.same(mails, [{ to_addr: email, subject: 'Many wrong sign-in codes for your Tollgate account' }], 'mailed once');

  // After the lock, the owner's right code works and clears the count.
  await h.services.store.db
    .updateTable('login_attempts')
    .set({ last_at: Date.now() - 16 * 60_000 })
    .where('scope', 'like', '2fa:%')
    .execute();
  // The next step's code: the one that enabled 2FA cannot be used again.
  const ok = await h.client.post(
    '/console/api/login/2fa',
    { challenge: fresh, code: await codeFor(secret, 30) },
    from('10.7.0.1'),
  );
  t.equal(ok.status, 200, JSON.stringify(ok.body));
  t.match(ok.body.token, /^ut_/);
  const left = await h.services.store.db
    .selectFrom('login_attempts')
    .selectAll()
    .where('scope', 'like', '2fa:%')
    .execute();
  t.same(left, [], 'a right code clears the account count');
});
