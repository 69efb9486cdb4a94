// Admin routes: refused to anonymous (401) and non-admins (403) on the server; users, grants, stats.
import t from 'tap';
import { CONSOLE_ROUTES } from '../../core/console/contract/index.js';
import { CANARY_EMAIL, ensureSystemKey } from '../../core/health/system-account.js';
import { createTestApp, type TestApp } from '../helpers/create-test-app.js';
import { admin, consoleUser } from './support.js';

let h: TestApp;
let a: Awaited<ReturnType<typeof admin>>;
t.before(async () => {
  h = await createTestApp();
  a = await admin(h);
});
t.afterEach(() => h.assertReconciled());
t.teardown(() => h.close());

t.test('every admin route: anonymous 401, a logged-in user 403', async (t) => {
  const u = await consoleUser(h, 0);
  const adminRoutes = CONSOLE_ROUTES.filter((e) => e.auth === 'admin');
  t.ok(adminRoutes.length >= 9);
  for (const e of adminRoutes) {
    const path = e.path.replace(':id', '1').replace(':batch', '1');
    const anon = await h.client.request(path, { method: e.method, body: e.method === 'GET' ? undefined : {} });
    t.equal(anon.status, 401, `${e.method} ${path} anonymous`);
    t.equal(anon.body.error.code, 'UNAUTHORIZED');
    const user = await h.client.request(path, {
      method: e.method,
      headers: u.headers,
      body: e.method === 'GET' ? undefined : {},
    });
    t.equal(user.status, 403, `${e.method} ${path} as user`);
    t.same(user.body.error, { code: 'FORBIDDEN', message: 'This needs the admin role.' });
  }
});

t.test('list and search users, with balances in TOKEN', async (t) => {
  const u = await h.user('2.5', { email: 'search_me%x@example.com' });
  await h.user('1', { email: 'searchXme@example.com' });
  const res = await h.client.get('/console/api/admin/users?q=SEARCH_ME%25', a.headers);
  t.equal(res.status, 200);
  t.equal(res.body.users.length, 1, '% and _ are matched literally');
  t.match(res.body.users[0], {
    id: u.userId,
    email: 'search_me%x@example.com',
    role: 'user',
    status: 'active',
    balance: 2.5,
    available: 2.5,
  });
  const all = await h.client.get('/console/api/admin/users', a.headers);
  t.ok(all.body.users.length >= 3);
  const one = await h.client.get(`/console/api/admin/users/${u.userId}`, a.headers);
  t.equal(one.body.user.email, 'search_me%x@example.com');
  t.equal((await h.client.get('/console/api/admin/users/999999', a.headers)).status, 404);
});

t.test('grants add and deduct with a reason: one ledger row each', async (t) => {
  const u = await h.user('1', { email: 'granted@example.com' });
  const add = await h.client.post(
    '/console/api/admin/grants',
    { email: 'granted@example.com', amount: 2.5, reason: 'welcome' },
    a.headers,
  );
  t.equal(add.status, 201);
  t.match(add.body, { user_id: u.userId, email: 'granted@example.com', amount: 2.5, balance: 3.5, ref: /^grant:/ });
  const sub = await h.client.post(
    '/console/api/admin/grants',
    { email: 'granted@example.com', amount: '-0.5', reason: 'refund reversal' },
    a.headers,
  );
  t.equal(sub.status, 201);
  t.equal(sub.body.balance, 3);
  const ledger = await h.ledger(u.userId);
  t.same(
    ledger.slice(1).map((r) => [r.amount, r.kind, r.balance_after]),
    [
      [2_500_000, 'grant', 3_500_000],
      [-500_000, 'adjustment', 3_000_000],
    ],
  );
  const notes = await h.services.store.db
    .selectFrom('ledger')
    .select('note')
    .where('user_id', '=', u.userId)
    .orderBy('id')
    .execute();
  t.same(
    notes.slice(1).map((n) => n.note),
    [`welcome (by admin ${a.userId})`, `refund reversal (by admin ${a.userId})`],
  );
  const tooMuch = await h.client.post(
    '/console/api/admin/grants',
    { email: 'granted@example.com', amount: -5, reason: 'x' },
    a.headers,
  );
  t.equal(tooMuch.status, 409);
  t.same(tooMuch.body.error, {
    code: 'CONFLICT',
    message: "Cannot deduct 5 TOKEN: it exceeds the user's available balance.",
  });
  t.equal(
    (
      await h.client.post(
        '/console/api/admin/grants',
        { email: 'granted@example.com', amount: 0, reason: 'x' },
        a.headers,
      )
    ).status,
    400,
  );
  t.equal(
    (await h.client.post('/console/api/admin/grants', { email: 'granted@example.com', amount: 1 }, a.headers)).body
      .error.message,
    "'reason' is required and must be a non-empty string.",
  );
  t.equal(
    (
      await h.client.post(
        '/console/api/admin/grants',
        { email: 'nobody@example.com', amount: 1, reason: 'x' },
        a.headers,
      )
    ).status,
    404,
  );
  t.same(await h.balance(u.userId), { balance: 3_000_000, held: 0 });
});

t.test('an admin cannot disable themselves; bad status is 400', async (t) => {
  const self = await h.client.request(`/console/api/admin/users/${a.userId}`, {
    method: 'PATCH',
    body: { status: 'disabled' },
    headers: a.headers,
  });
  t.equal(self.status, 409);
  const bad = await h.client.request(`/console/api/admin/users/${a.userId}`, {
    method: 'PATCH',
    body: { status: 'gone' },
    headers: a.headers,
  });
  t.equal(bad.body.error.message, "'status' must be one of active, disabled.");
});

t.test('stats: calls, successes, revenue and top operations per day', async (t) => {
  const fresh = await createTestApp();
  t.teardown(() => fresh.close());
  const boss = await admin(fresh);
  const u = await fresh.user('1');
  for (let i = 0; i < 3; i++) await fresh.client.get(`/api/echo?msg=s${i}`, { 'X-API-Key': u.key });
  await fresh.client.get('/api/items/5', { 'X-API-Key': u.key });
  await fresh.client.get('/api/echo?n=bad', { 'X-API-Key': u.key });
  const res = await fresh.client.get('/console/api/admin/stats', boss.headers);
  t.equal(res.status, 200);
  const today = new Date(Date.now() + 8 * 3600_000).toISOString().slice(0, 10);
  t.same(res.body, {
    users: 2,
    totals: { calls: 5, successes: 4, revenue: 0.032 },
    days: [
      {
        day: today,
        calls: 5,
        successes: 4,
        revenue: 0.032,
        top_operations: [
          { operation: 'echo', calls: 4, revenue: 0.03 },
          { operation: 'item', calls: 1, revenue: 0.002 },
        ],
      },
    ],
  });
  await fresh.assertReconciled();
});

t.test("the canaries' system account is not a customer: left out of the user list and the users count", async (t) => {
  const u = await h.user('1');
  const system = await ensureSystemKey(h.services.store.db);
  const everyone = await h.services.store.db.selectFrom('users').select('id').orderBy('id').execute();
  const customers = everyone.map((r) => Number(r.id)).filter((id) => id !== system.userId);
  const list = await h.client.get('/console/api/admin/users?limit=500', a.headers);
  t.equal(list.status, 200);
  t.same(
    list.body.users.map((x: { id: number }) => x.id),
    customers,
  );
  t.ok(customers.includes(u.userId) && customers.includes(a.userId));
  const search = await h.client.get('/console/api/admin/users?q=canary', a.headers);
  t.same(search.body.users, []);
  const stats = await h.client.get('/console/api/admin/stats', a.headers);
  t.equal(stats.body.users, customers.length);
  // Its own id still opens it, for an admin following a canary row of the call log.
  const one = await h.client.get(`/console/api/admin/users/${system.userId}`, a.headers);
  t.equal(one.body.user.email, CANARY_EMAIL);
});
