// F14 (NUL bytes never reach SQL; the console answers 503 while the database is down), F15 (TOKEN amounts and
// caps range-checked at the edge; old out-of-range rows do not break listing) and F19 (registration answers an
// existing email the way login does). The NUL cases run on SQLite and, when reachable, on PostgreSQL.

import { sql } from 'kysely';
import t, { type Test } from 'tap';
import { admin, consoleUser } from '../console/support.js';
import { createTestApp, type TestApp } from '../helpers/create-test-app.js';
import { unreachable } from '../scale/backend.js';

async function nulCases(t: Test, h: TestApp): Promise<void> {
  const a = await admin(h);
  const u = await consoleUser(h, 1);
  const cases: Array<[string, string, unknown, Record<string, string>, string]> = [
    ['POST', '/console/api/register', { email: 'a\u0000@b.cc', password: 'Correct-Horse-9' }, {}, 'email'],
    ['POST', '/console/api/login', { email: 'a@b.cc', password: 'pass\u0000word1' }, {}, 'password'],
    ['POST', '/console/api/keys', { name: 'x\u0000y' }, u.headers, 'name'],
    ['POST', '/console/api/admin/grants', { email: 'a@b.cc', amount: 1, reason: 'r\u0000' }, a.headers, 'reason'],
    ['GET', '/console/api/calls?code=a%00b', undefined, u.headers, 'code'],
    ['GET', '/console/api/calls.csv?code=a%00b', undefined, u.headers, 'code'],
    ['GET', '/console/api/admin/users?q=a%00b', undefined, a.headers, 'q'],
    ['POST', '/console/api/redeem', { code: '\u0000' }, u.headers, 'code'],
  ];
  for (const [method, path, body, headers, field] of cases) {
    const res = await h.client.request(path, { method, body, headers });
    t.equal(res.status, 400, `${method} ${path}`);
    t.same(
      res.body.error,
      { code: 'INVALID_INPUT', message: `'${field}' contains a NUL character (\\u0000), which is not allowed.` },
      path,
    );
  }
  const keys = await h.services.store.db
    .selectFrom('api_keys')
    .select('name')
    .where('user_id', '=', u.userId)
    .execute();
  t.same(
    keys.map((k) => k.name),
    ['test'],
    'no key was created',
  );
}

t.test('F14: NUL bytes are 400 INVALID_INPUT on every console route (SQLite)', async (t) => {
  const h = await createTestApp();
  t.teardown(() => h.close());
  await nulCases(t, h);
});

const pgMissing = await unreachable();
/** A test app on a fresh PostgreSQL schema + Redis prefix of its own (removed on close). */
async function pgApp(): Promise<TestApp> {
  const before = process.env.TOLLGATE_TEST_BACKEND;
  process.env.TOLLGATE_TEST_BACKEND = 'pg-redis';
  return createTestApp().finally(() => {
    if (before === undefined) delete process.env.TOLLGATE_TEST_BACKEND;
    else process.env.TOLLGATE_TEST_BACKEND = before;
  });
}

t.test(
  'F14: NUL bytes are 400 INVALID_INPUT on every console route (PostgreSQL)',
  { skip: pgMissing ? `PostgreSQL + Redis needed: ${pgMissing}` : false },
  async (t) => {
    const h = await pgApp();
    t.teardown(() => h.close());
    t.equal(h.services.store.dialect, 'postgres');
    await nulCases(t, h);
  },
);

t.test('F14: every console route answers 503 UNAVAILABLE with Retry-After while the database is down', async (t) => {
  const h = await createTestApp();
  t.teardown(() => h.close());
  const u = await consoleUser(h, 1);
  const a = await admin(h);
  await h.services.store.db.destroy();
  const probes: Array<[string, string, unknown, Record<string, string>]> = [
    ['GET', '/console/api/me', undefined, u.headers],
    ['GET', '/console/api/keys', undefined, u.headers],
    ['POST', '/console/api/login', { email: 'x@example.com', password: 'Correct-Horse-9' }, {}],
    ['POST', '/console/api/register', { email: 'y@example.com', password: 'Correct-Horse-9' }, {}],
    ['GET', '/console/api/admin/users', undefined, a.headers],
  ];
  for (const [method, path, body, headers] of probes) {
    const res = await h.client.request(path, { method, body, headers });
    t.equal(res.status, 503, path);
    t.equal(res.headers['retry-after'], '5', path);
    t.same(
      res.body.error,
      { code: 'UNAVAILABLE', message: 'The database is unavailable right now. Retry shortly.' },
      path,
    );
    t.notMatch(res.text, /driver|destroyed|sqlite|stack/i, 'no internals');
  }
});

async function amountCases(t: Test, h: TestApp): Promise<void> {
  const db = h.services.store.db;
  const a = await admin(h);
  const u = await consoleUser(h, 1);
  const range = 'must be a TOKEN amount from -1000000000 to 1000000000 with at most 6 decimals, e.g. 12.5.';
  for (const amount of ['999999999999.999999', 1e12, '1000000000.000001', -1e10]) {
    const g = await h.client.post('/console/api/admin/grants', { email: u.email, amount, reason: 'big' }, a.headers);
    t.equal(g.status, 400, String(amount));
    t.same(g.body.error, { code: 'INVALID_INPUT', message: `'amount' ${range}` });
  }
  t.same(await h.balance(u.userId), { balance: 1_000_000, held: 0 }, 'no ledger change');
  for (const cap of [999999999999, '1e20', 2 ** 53]) {
    const k = await h.client.post('/console/api/keys', { name: 'x', daily_spend_cap: cap }, u.headers);
    t.equal(k.status, 400, String(cap));
    t.equal(k.body.error.code, 'INVALID_INPUT');
  }
  const patch = await h.client.request(`/console/api/keys/${u.keyId}`, {
    method: 'PATCH',
    body: { daily_spend_cap: 999999999999 },
    headers: u.headers,
  });
  t.equal(patch.status, 400);
  t.equal(
    (await db.selectFrom('api_keys').select('id').where('user_id', '=', u.userId).execute()).length,
    1,
    'no key created',
  );
  const max = await h.client.post('/console/api/keys', { name: 'max', daily_spend_cap: 1e9 }, u.headers);
  t.equal(max.status, 201);
  t.equal(max.body.key.limits.daily_spend_cap, 1e9);
  // A row written before the check (10^18 micro) lists as the maximum instead of breaking the list.
  await sql`update api_keys set daily_spend_cap = 1000000000000000000 where id = ${u.keyId}`.execute(db);
  const list = await h.client.get('/console/api/keys', u.headers);
  t.equal(list.status, 200);
  t.same(
    list.body.keys.map((k: { limits: { daily_spend_cap: number } }) => k.limits.daily_spend_cap),
    [1e9, 1e9],
  );
  t.equal(
    (await h.client.post('/console/api/keys', { name: 'after' }, u.headers)).status,
    201,
    'and keys can still be created',
  );
  const renamed = await h.client.request(`/console/api/keys/${u.keyId}`, {
    method: 'PATCH',
    body: { name: 'renamed' },
    headers: u.headers,
  });
  t.equal(renamed.status, 200, 'and the old key can still be changed');
  t.equal(renamed.body.key.limits.daily_spend_cap, 1e9);
  t.equal((await h.client.get('/api/echo?msg=1', { 'X-API-Key': u.key })).status, 200, 'and still calls');
}

t.test(
  'F15: amounts above 10^9 TOKEN are 400 INVALID_INPUT; a key is never created with a bad cap; old rows still list (SQLite)',
  async (t) => {
    const h = await createTestApp();
    t.teardown(() => h.close());
    await amountCases(t, h);
  },
);

t.test(
  'F15: the same on PostgreSQL, whose int8 parser refuses values above 2^53',
  { skip: pgMissing ? `PostgreSQL + Redis needed: ${pgMissing}` : false },
  async (t) => {
    const h = await pgApp();
    t.teardown(() => h.close());
    await amountCases(t, h);
  },
);

t.test(
  'F19: registering an existing email answers like a login; new and known emails get the same shape',
  async (t) => {
    const h = await createTestApp();
    t.teardown(() => h.close());
    const fresh = await h.client.post('/console/api/register', {
      email: 'kim@example.com',
      password: 'Correct-Horse-9',
    });
    t.equal(fresh.status, 201);
    const again = await h.client.post('/console/api/register', {
      email: 'KIM@example.com',
      password: 'Correct-Horse-9',
    });
    t.equal(again.status, 201, 'the owner signing up twice is logged in');
    t.same(Object.keys(again.body).sort(), Object.keys(fresh.body).sort());
    t.same(again.body.user, fresh.body.user);
    t.not(again.body.token, fresh.body.token);
    const guess = await h.client.post('/console/api/register', { email: 'kim@example.com', password: 'Wrong-Horse-9' });
    t.equal(guess.status, 409);
    t.same(guess.body.error, {
      code: 'CONFLICT',
      message: 'This email cannot be registered with this password. If the account is yours, log in.',
    });
    t.notMatch(guess.body.error.message, /exists/);
    const counted = await h.services.store.db
      .selectFrom('login_attempts')
      .select('failures')
      .where('scope', '=', 'ipacct:127.0.0.1|kim@example.com')
      .executeTakeFirst();
    t.equal(counted?.failures, 1, 'a wrong password at sign-up counts as a failed login');
    const users = await h.services.store.db
      .selectFrom('users')
      .select('id')
      .where('email', '=', 'kim@example.com')
      .execute();
    t.equal(users.length, 1);
  },
);
