// F10 + F11: login throttling cannot lock a victim out, and one source cannot spray, flood or sign up in bulk.
// Client IPs come from X-Forwarded-For behind one trusted proxy hop (the test client is the proxy).
import t from 'tap';
import {
  ACCOUNT_FREE_FAILURES,
  FREE_FAILURES,
  IP_FREE_FAILURES,
  KNOWN_GOOD_MS,
  MAX_LOCK_S,
  pruneLoginAttempts,
  recordLoginFailure,
  WINDOW_MS,
} from '../../core/accounts/login-throttle.js';
import { PasswordWork, PasswordWorkRefused } from '../../core/accounts/password-work.js';
import { readSettings } from '../../core/config/env.js';
import { AUTH_BUDGETS } from '../../core/console/api/auth-limits.js';
import { createTestApp, type TestApp } from '../helpers/create-test-app.js';

let h: TestApp;
t.before(async () => {
  h = await createTestApp({ settings: { trustProxy: readSettings({ TRUST_PROXY: '1' }).trustProxy } });
});
t.teardown(() => h.close());

const from = (ip: string): Record<string, string> => ({ 'x-forwarded-for': ip });
const login = (email: string, password: string, ip: string) =>
  h.client.post('/console/api/login', { email, password }, from(ip));
const register = (email: string, password: string, ip: string) =>
  h.client.post('/console/api/register', { email, password }, from(ip));

t.test(
  'F10: an attacker failing from one IP cannot lock the owner out; the owner logs in from elsewhere',
  async (t) => {
    t.equal((await register('victim@example.com', 'Correct-Horse-9', '198.51.100.10')).status, 201);
    for (let i = 0; i < FREE_FAILURES; i++)
      t.equal((await login('victim@example.com', `guess${i}xyz1`, '203.0.113.66')).status, 401);
    const attacker = await login('victim@example.com', 'Correct-Horse-9', '203.0.113.66');
    t.equal(attacker.status, 429, 'the failing IP waits, even with the right password');
    t.equal(attacker.headers['retry-after'], '30');
    t.same(attacker.body.error, {
      code: 'TOO_MANY_ATTEMPTS',
      message: 'Too many failed logins for this email from this address. Retry in 30 seconds.',
    });
    const owner = await login('victim@example.com', 'Correct-Horse-9', '198.51.100.10');
    t.equal(owner.status, 200, 'the right password from an IP that has not been failing is accepted');
    const ownerElsewhere = await login('victim@example.com', 'Correct-Horse-9', '192.0.2.44');
    t.equal(ownerElsewhere.status, 200, 'also from a new network');
  },
);

t.test(
  'F10: IPv6 clients are throttled per /64, so rotating addresses inside one network does not reset the count',
  async (t) => {
    t.equal((await register('v6@example.com', 'Correct-Horse-9', '198.51.100.60')).status, 201);
    for (let i = 0; i < FREE_FAILURES; i++)
      t.equal((await login('v6@example.com', `guess${i}xyz1`, `2001:db8:1:2::${i + 1}`)).status, 401);
    const rotated = await login('v6@example.com', 'Correct-Horse-9', '2001:db8:1:2:ffff::9');
    t.equal(rotated.status, 429, 'another address of the same /64 waits too');
    t.equal(
      (await login('v6@example.com', 'Correct-Horse-9', '2001:db8:1:3::1')).status,
      200,
      'the next /64 is another client',
    );
  },
);

t.test('F10: a distributed attack locks the account for unknown IPs only; a known-good IP still gets in', async (t) => {
  const db = h.services.store.db;
  t.equal((await register('admin2@example.com', 'Correct-Horse-9', '198.51.100.20')).status, 201);
  t.equal(
    (await login('admin2@example.com', 'Correct-Horse-9', '198.51.100.20')).status,
    200,
    'the owner has logged in from here',
  );
  // 50 failures from 25 IPs, 2 each: no single IP reaches its own limit.
  for (let i = 0; i < ACCOUNT_FREE_FAILURES; i++)
    await recordLoginFailure(db, `203.0.113.${100 + (i % 25)}`, 'admin2@example.com');
  const fresh = await login('admin2@example.com', 'Correct-Horse-9', '192.0.2.99');
  t.equal(fresh.status, 429, 'an IP with no history for this account waits');
  t.match(
    fresh.body.error.message,
    /^Too many failed logins for this email from this address\. Retry in \d+ seconds\.$/,
  );
  const known = await login('admin2@example.com', 'Correct-Horse-9', '198.51.100.20');
  t.equal(known.status, 200, 'the known-good IP is not locked out');
  const knownWrong = await login('admin2@example.com', 'nope-nope-1', '198.51.100.20');
  t.equal(knownWrong.status, 401, 'and keeps its own budget of failures');
});

t.test('F11: password spraying from one IP (many emails, one password each) is slowed per IP', async (t) => {
  const db = h.services.store.db;
  for (let i = 0; i < IP_FREE_FAILURES - 1; i++) await recordLoginFailure(db, '203.0.113.7', `spray${i}@example.com`);
  const last = await login('spray-last@example.com', 'Password-123', '203.0.113.7');
  t.equal(last.status, 401, `failure ${IP_FREE_FAILURES} is still an answer`);
  const next = await login('another@example.com', 'Password-123', '203.0.113.7');
  t.equal(next.status, 429);
  t.same(next.body.error, {
    code: 'TOO_MANY_ATTEMPTS',
    message: 'Too many failed logins from this address. Retry in 30 seconds.',
  });
  t.equal((await login('another@example.com', 'Password-123', '203.0.113.8')).status, 401, 'other IPs are unaffected');
});

t.test('F11: per-IP request budgets on login and registration (429 with Retry-After, nothing created)', async (t) => {
  const ip = '203.0.113.200';
  for (let i = 0; i < AUTH_BUDGETS.register.burst; i++)
    await h.services.state.takeToken(
      `console:register:ip:${ip}`,
      AUTH_BUDGETS.register.perHour / 3600,
      AUTH_BUDGETS.register.burst,
    );
  const reg = await register('bulk@example.com', 'Correct-Horse-9', ip);
  t.equal(reg.status, 429);
  t.equal(reg.body.error.code, 'TOO_MANY_ATTEMPTS');
  t.match(reg.body.error.message, /^Too many sign-ups from this address\. Retry in \d+ seconds\.$/);
  t.ok(Number(reg.headers['retry-after']) >= 1);
  t.equal(
    await h.services.store.db
      .selectFrom('users')
      .select('id')
      .where('email', '=', 'bulk@example.com')
      .executeTakeFirst(),
    undefined,
    'no account',
  );
  t.equal(
    (await register('bulk@example.com', 'Correct-Horse-9', '203.0.113.201')).status,
    201,
    'another IP still signs up',
  );

  for (let i = 0; i < AUTH_BUDGETS.login.burst; i++)
    await h.services.state.takeToken(
      `console:login:ip:${ip}`,
      AUTH_BUDGETS.login.perHour / 3600,
      AUTH_BUDGETS.login.burst,
    );
  const flood = await login('bulk@example.com', 'Correct-Horse-9', ip);
  t.equal(flood.status, 429);
  t.match(flood.body.error.message, /^Too many login requests from this address\. Retry in \d+ seconds\.$/);

  const token = (await login('bulk@example.com', 'Correct-Horse-9', '203.0.113.201')).body.token as string;
  for (let i = 0; i < AUTH_BUDGETS.keyCreate.burst; i++)
    await h.services.state.takeToken(
      `console:keyCreate:ip:${ip}`,
      AUTH_BUDGETS.keyCreate.perHour / 3600,
      AUTH_BUDGETS.keyCreate.burst,
    );
  const key = await h.client.post(
    '/console/api/keys',
    { name: 'script' },
    { ...from(ip), authorization: `Bearer ${token}` },
  );
  t.equal(key.status, 429);
  t.match(key.body.error.message, /^Too many API keys created from this address\. Retry in \d+ seconds\.$/);
  t.equal(
    (await h.services.store.db.selectFrom('api_keys').select('id').where('name', '=', 'script').execute()).length,
    0,
    'no key minted',
  );
});

t.test(
  'F11: concurrent password checks are capped per client, so one source cannot fill the scrypt queue',
  async (t) => {
    const ip = '203.0.113.150';
    const answers = await Promise.all([1, 2, 3, 4].map((i) => login(`conc${i}@example.com`, 'Password-123', ip)));
    const statuses = answers.map((a) => a.status).sort();
    t.same(statuses, [401, 401, 429, 429], 'two checks run, the rest are refused at once');
    const busy = answers.find((a) => a.status === 429);
    t.same(busy?.body.error, {
      code: 'TOO_MANY_ATTEMPTS',
      message: 'A login from this address is already in progress. Retry in 1 second.',
    });
  },
);

t.test('PasswordWork: runs at most `running` at once, queues fairly, refuses a full queue at once', async (t) => {
  const work = new PasswordWork({ running: 1, queued: 1, reserved: 1, perClient: 2 });
  const order: string[] = [];
  let release!: () => void;
  const first = work.run('a', () => new Promise<void>((r) => (release = () => (order.push('a1'), r()))));
  const second = work.run('b', async () => void order.push('b1'));
  t.same(work.stats, { running: 1, waiting: 1 });
  await t.rejects(
    work.run('c', async () => undefined),
    new PasswordWorkRefused('queue-full'),
  );
  const urgent = work.run('d', async () => void order.push('d1'), true);
  t.same(work.stats, { running: 1, waiting: 2 }, 'priority work may use the reserved place');
  await t.rejects(
    work.run('e', async () => undefined, true),
    new PasswordWorkRefused('queue-full'),
  );
  release();
  await Promise.all([first, second, urgent]);
  t.same(order, ['a1', 'd1', 'b1'], 'priority work runs ahead of work that waited longer');
  t.same(work.stats, { running: 0, waiting: 0 });
  const solo = new PasswordWork({ running: 4, queued: 4, reserved: 0, perClient: 1 });
  let done!: () => void;
  const held = solo.run('x', () => new Promise<void>((r) => (done = r)));
  await t.rejects(
    solo.run('x', async () => undefined),
    new PasswordWorkRefused('client-busy'),
  );
  done();
  await held;
  t.equal(await solo.run('x', async () => 7), 7, 'the place is free again');
});

t.test('F11: login_attempts is pruned: stale counts and old known-good marks go, live ones stay', async (t) => {
  const db = h.services.store.db;
  const now = Date.now();
  await db.deleteFrom('login_attempts').execute();
  await db
    .insertInto('login_attempts')
    .values([
      { scope: 'ip:192.0.2.1', failures: 3, last_at: now - WINDOW_MS - MAX_LOCK_S * 1000 - 1 },
      { scope: 'acct:old@example.com', failures: 9, last_at: now - 24 * 3600_000 },
      { scope: 'ip:192.0.2.2', failures: 3, last_at: now - 60_000 },
      { scope: 'good:1|192.0.2.3', failures: 0, last_at: now - 24 * 3600_000 },
      { scope: 'good:1|192.0.2.4', failures: 0, last_at: now - KNOWN_GOOD_MS - 1 },
    ])
    .execute();
  t.equal(await pruneLoginAttempts(db, now), 3);
  const left = await db.selectFrom('login_attempts').select('scope').orderBy('scope').execute();
  t.same(
    left.map((r) => r.scope),
    ['good:1|192.0.2.3', 'ip:192.0.2.2'],
  );
});

t.test('F11: under a login flood from many addresses the owner, from a known-good IP, gets in first', async (t) => {
  t.equal((await register('busy-owner@example.com', 'Correct-Horse-9', '198.51.100.30')).status, 201);
  t.equal(
    (await login('busy-owner@example.com', 'Correct-Horse-9', '198.51.100.30')).status,
    200,
    'the owner has logged in from here before',
  );
  const finished: string[] = [];
  const flood = Array.from({ length: 40 }, (_, i) =>
    login(`flood${i}@example.com`, 'Password-123', `203.0.113.${i + 1}`).then((r) => (finished.push(`flood${i}`), r)),
  );
  await new Promise((r) => setTimeout(r, 200)); // every flood request has reached the password gate
  const started = Date.now();
  const owner = await login('busy-owner@example.com', 'Correct-Horse-9', '198.51.100.30').then(
    (r) => (finished.push('owner'), r),
  );
  const ownerMs = Date.now() - started;
  const floods = await Promise.all(flood);
  t.equal(owner.status, 200);
  const refused = floods.filter((r) => r.status === 503);
  t.ok(refused.length >= 20, `${refused.length} flood logins refused at once (queue full)`);
  t.same(refused[0]?.body.error, {
    code: 'UNAVAILABLE',
    message: 'Too many logins are being checked right now. Retry in 1 second.',
  });
  t.equal(refused[0]?.headers['retry-after'], '1');
  const after = finished.length - 1 - finished.indexOf('owner');
  t.ok(after >= 10, `the owner finished ahead of ${after} queued flood logins (owner took ${ownerMs} ms)`);
  t.comment(`owner login under a 40-address flood: ${ownerMs} ms`);
});
