// F23: scrypt at OWASP parameters with a transparent re-hash of older hashes on login; emails normalised (NFKC,
// trimmed, lower-cased), control and invisible characters refused, length and shape checked.

import { randomBytes, scryptSync } from 'node:crypto';
import t from 'tap';
import { emailProblem, normaliseEmail } from '../../core/accounts/emails.js';
import { hashPassword, needsRehash, SCRYPT_PARAMS, verifyPassword } from '../../core/accounts/passwords.js';
import { createUser } from '../../core/accounts/users.js';
import { createTestApp, type TestApp } from '../helpers/create-test-app.js';

let h: TestApp;
t.before(async () => {
  h = await createTestApp();
});
t.teardown(() => h.close());

/** A hash as the code before this fix wrote it: N=2^14. */
function legacyHash(password: string): string {
  const salt = randomBytes(16);
  const key = scryptSync(password.normalize('NFKC'), salt, 32, { N: 16384, r: 8, p: 1 });
  return `scrypt$16384$8$1$${salt.toString('base64')}$${key.toString('base64')}`;
}

t.test('new hashes use N=2^17, r=8, p=1 and verify', async (t) => {
  t.same(SCRYPT_PARAMS, { N: 131072, r: 8, p: 1 });
  const stored = await hashPassword('Correct-Horse-9');
  t.match(stored, /^scrypt\$131072\$8\$1\$[A-Za-z0-9+/=]{24}\$[A-Za-z0-9+/=]{44}$/);
  t.equal(await verifyPassword('Correct-Horse-9', stored), true);
  t.equal(await verifyPassword('Correct-Horse-8', stored), false);
  t.equal(needsRehash(stored), false);
  t.equal(needsRehash(legacyHash('x')), true);
  t.equal(
    await verifyPassword('x', 'scrypt$4194304$8$1$AAAA$AAAA'),
    false,
    'absurd stored parameters are refused, not allocated',
  );
});

t.test('login with an old N=2^14 hash succeeds and stores a fresh N=2^17 hash', async (t) => {
  const db = h.services.store.db;
  const old = legacyHash('Correct-Horse-9');
  const user = await createUser(db, 'legacy@example.com', 'unused', 'user', old);
  const res = await h.client.post('/console/api/login', { email: 'legacy@example.com', password: 'Correct-Horse-9' });
  t.equal(res.status, 200);
  const row = await db.selectFrom('users').select('password_hash').where('id', '=', user.id).executeTakeFirstOrThrow();
  t.not(row.password_hash, old);
  t.match(row.password_hash, /^scrypt\$131072\$8\$1\$/);
  t.equal(await verifyPassword('Correct-Horse-9', row.password_hash), true);
  t.equal(
    (await h.client.post('/console/api/login', { email: 'legacy@example.com', password: 'Correct-Horse-9' })).status,
    200,
    'and it keeps working',
  );
  const wrong = await h.client.post('/console/api/login', { email: 'legacy@example.com', password: 'Wrong-Horse-9' });
  t.equal(wrong.status, 401);
});

t.test('emails: NFKC, trim and lower-case give one account per mailbox', async (t) => {
  t.equal(normaliseEmail('  ＡＬＩＣＥ@ｅｘａｍｐｌｅ.ｃｏｍ '), 'alice@example.com');
  const first = await h.client.post('/console/api/register', { email: 'Zoe@Example.com', password: 'Correct-Horse-9' });
  t.equal(first.status, 201);
  const lookalike = await h.client.post('/console/api/register', {
    email: 'ｚｏｅ@example.com',
    password: 'Other-Horse-9',
  });
  t.equal(lookalike.status, 409, 'the fullwidth spelling is the same account, not a second one');
  const login = await h.client.post('/console/api/login', { email: 'ＺＯＥ@EXAMPLE.COM', password: 'Correct-Horse-9' });
  t.equal(login.status, 200);
  t.equal(login.body.user.email, 'zoe@example.com');
});

t.test(
  'emails: control characters, invisible characters, bad shapes and over-long addresses are 400 and create nothing',
  async (t) => {
    const cases: Array<[string, string]> = [
      ['bell\u0007@example.com', 'control or invisible characters are not allowed'],
      ['zero\u200bwidth@example.com', 'control or invisible characters are not allowed'],
      ['rtl\u202e@example.com', 'control or invisible characters are not allowed'],
      ['"><svg/onload=alert(1)>@evil.com', 'the part before @ has characters that are not allowed'],
      ['a b@example.com', 'the part before @ has characters that are not allowed'],
      ['a..b@example.com', 'the part before @ has characters that are not allowed'],
      ['x@example', 'the domain needs a dot, e.g. example.com'],
      ['x@-bad.com', 'the domain is not a valid host name'],
      ['x@example.c', 'the domain is not a valid host name'],
      [`${'a'.repeat(65)}@example.com`, 'the part before @ has at most 64 characters'],
      [`${'a'.repeat(60)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.com`, 'at most 254 characters'],
      ['@example.com', 'expected name@domain'],
    ];
    for (const [email, why] of cases) {
      t.equal(emailProblem(normaliseEmail(email)), why, JSON.stringify(email));
      const res = await h.client.post('/console/api/register', { email, password: 'Correct-Horse-9' });
      t.equal(res.status, 400, JSON.stringify(email));
      t.same(res.body.error, { code: 'INVALID_INPUT', message: `'email' is not a valid email address (${why}).` });
    }
    const n = await h.services.store.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('email', 'like', '%example.com')
      .executeTakeFirstOrThrow();
    t.equal(Number(n.n), 2, 'only the accounts of the earlier tests');
    for (const ok of [
      'a.b+tag@example.com',
      'admin@localhost',
      'user@xn--fiqs8s.cn',
      '用户@例子.中国',
      "o'brien@example.co.uk",
    ]) {
      t.equal(emailProblem(normaliseEmail(ok)), null, ok);
    }
  },
);
