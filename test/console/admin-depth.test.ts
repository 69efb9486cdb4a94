// Admin depth: refunds and debits with a reason (exact ledger rows, never below what is available), the
// drill-down of one user, the audit log (who, what, from which IP, exact rows) and streamed CSV exports.
import t from 'tap';
import { localClock } from '../../core/console/api/csv-locale.js';
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

const adjust = (userId: number, body: unknown, headers = a.headers) =>
  h.client.post(`/console/api/admin/users/${userId}/adjustments`, body, headers);
const auditOf = async (userId: number) =>
  (
    await h.services.store.db
      .selectFrom('audit_log')
      .selectAll()
      .where('subject_user_id', '=', userId)
      .orderBy('id')
      .execute()
  ).map((r) => ({
    actor_id: Number(r.actor_id),
    actor_role: r.actor_role,
    action: r.action,
    target_type: r.target_type,
    target_id: r.target_id,
    detail: JSON.parse(r.detail) as unknown,
    ip: r.ip,
  }));

t.test(
  'refund and debit: one ledger row each with the reason; a debit never goes below the available balance',
  async (t) => {
    const u = await consoleUser(h, '1');
    const refund = await adjust(u.userId, { kind: 'refund', amount: '0.25', reason: 'failed upstream calls' });
    t.equal(refund.status, 201);
    t.match(refund.body, {
      user_id: u.userId,
      kind: 'refund',
      amount: 0.25,
      balance: 1.25,
      ref: /^refund:\d+:[0-9a-f]{12}$/,
    });
    const debit = await adjust(u.userId, { kind: 'debit', amount: 1.2, reason: 'chargeback' });
    t.equal(debit.status, 201);
    t.match(debit.body, { kind: 'debit', amount: -1.2, balance: 0.05, ref: /^debit:/ });
    const tooMuch = await adjust(u.userId, { kind: 'debit', amount: '0.050001', reason: 'x' });
    t.equal(tooMuch.status, 409);
    t.same(tooMuch.body.error, {
      code: 'CONFLICT',
      message: "Cannot debit 0.050001 TOKEN: it exceeds the user's available balance.",
    });

    // Money held by a call in flight is not available to a debit either.
    await h.services.store.db.updateTable('users').set({ held: 30_000 }).where('id', '=', u.userId).execute();
    t.equal((await adjust(u.userId, { kind: 'debit', amount: '0.03', reason: 'x' })).status, 409);
    await h.services.store.db.updateTable('users').set({ held: 0 }).where('id', '=', u.userId).execute();

    const ledger = await h.ledger(u.userId);
    t.same(
      ledger.map((r) => [r.amount, r.kind, r.balance_after]),
      [
        [1_000_000, 'grant', 1_000_000],
        [250_000, 'refund', 1_250_000],
        [-1_200_000, 'adjustment', 50_000],
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
      [`failed upstream calls (by admin ${a.userId})`, `chargeback (by admin ${a.userId})`],
    );
    t.same(await h.balance(u.userId), { balance: 50_000, held: 0 });

    t.same(
      await auditOf(u.userId),
      [
        {
          actor_id: a.userId,
          actor_role: 'admin',
          action: 'user.refund',
          target_type: 'user',
          target_id: String(u.userId),
          detail: { amount: 0.25, reason: 'failed upstream calls', ref: refund.body.ref, balance_after: 1.25 },
          ip: '127.0.0.1',
        },
        {
          actor_id: a.userId,
          actor_role: 'admin',
          action: 'user.debit',
          target_type: 'user',
          target_id: String(u.userId),
          detail: { amount: 1.2, reason: 'chargeback', ref: debit.body.ref, balance_after: 0.05 },
          ip: '127.0.0.1',
        },
      ],
      'refused changes leave no audit row',
    );
  },
);

t.test('bad adjustments are 400/404, not charged and not audited', async (t) => {
  const u = await consoleUser(h, '1');
  const cases: Array<[unknown, string]> = [
    [{ kind: 'gift', amount: 1, reason: 'x' }, "'kind' must be one of refund, debit."],
    [
      { kind: 'refund', amount: -1, reason: 'x' },
      "'amount' must be a positive TOKEN amount; 'kind' says whether it is a refund or a debit.",
    ],
    [
      { kind: 'refund', amount: 0, reason: 'x' },
      "'amount' must be a positive TOKEN amount; 'kind' says whether it is a refund or a debit.",
    ],
    [
      { kind: 'refund', amount: '1.0000001', reason: 'x' },
      "'amount' must be a TOKEN amount from -1000000000 to 1000000000 with at most 6 decimals, e.g. 12.5.",
    ],
    [{ kind: 'refund', amount: 1 }, "'reason' is required and must be a non-empty string."],
    [{ kind: 'refund', amount: 1, reason: 'x', note: 'y' }, "Unknown field 'note'; allowed: kind, amount, reason."],
  ];
  for (const [body, message] of cases) {
    const res = await adjust(u.userId, body);
    t.equal(res.status, 400);
    t.same(res.body.error, { code: 'INVALID_INPUT', message });
  }
  t.equal((await adjust(999999, { kind: 'refund', amount: 1, reason: 'x' })).status, 404);
  t.equal(
    (await adjust(u.userId, { kind: 'refund', amount: 1, reason: 'x' }, u.headers)).status,
    403,
    'users cannot refund themselves',
  );
  t.same(await h.balance(u.userId), { balance: 1_000_000, held: 0 });
  t.same(await auditOf(u.userId), []);
});

t.test('key and limit changes are audited with before/after, and listed in the audit API', async (t) => {
  const u = await consoleUser(h, '1');
  const created = await h.client.post('/console/api/keys', { name: 'ci', rate_limit_per_sec: 5 }, u.headers);
  const id = created.body.key.id;
  await h.client.request(`/console/api/keys/${id}`, {
    method: 'PATCH',
    body: { rate_limit_per_sec: 9, disabled: true },
    headers: u.headers,
  });
  await h.client.request(`/console/api/keys/${id}`, { method: 'DELETE', headers: u.headers });
  const rows = (await auditOf(u.userId)).map((r) => [r.actor_id, r.actor_role, r.action, r.target_id, r.detail]);
  t.same(rows, [
    [
      u.userId,
      'user',
      'key.create',
      String(id),
      { name: 'ci', prefix: created.body.key.prefix, limits: created.body.key.limits },
    ],
    [
      u.userId,
      'user',
      'key.update',
      String(id),
      { status: { from: 'active', to: 'disabled' }, rate_limit_per_sec: { from: 5, to: 9 } },
    ],
    [u.userId, 'user', 'key.delete', String(id), {}],
  ]);
  const api = await h.client.get(`/console/api/admin/audit?user_id=${u.userId}&limit=2`, a.headers);
  t.same(
    api.body.entries.map((e: { action: string }) => e.action),
    ['key.delete', 'key.update'],
    'newest first',
  );
  t.equal(typeof api.body.next_before, 'number');
  const rest = await h.client.get(
    `/console/api/admin/audit?user_id=${u.userId}&before=${api.body.next_before}`,
    a.headers,
  );
  t.same(
    rest.body.entries.map((e: { action: string }) => e.action),
    ['key.create'],
  );
  t.match(rest.body.entries[0], {
    actor_id: u.userId,
    actor_role: 'user',
    target_type: 'api_key',
    subject_user_id: u.userId,
    ip: '127.0.0.1',
  });
  t.equal((await h.client.get('/console/api/admin/audit', u.headers)).status, 403);
  for (const [q, message] of [
    ['user_id=abc', "'user_id' must be an integer from 1 to 9007199254740991."],
    ['user_id=0x10', "'user_id' must be an integer from 1 to 9007199254740991."],
    ['actor_id=1e2', "'actor_id' must be an integer from 1 to 9007199254740991."],
    ['before=1.5', "'before' must be an integer from 1 to 9007199254740991."],
    ['limit=501', "'limit' must be an integer from 1 to 500."],
    ['limit=%2B5', "'limit' must be an integer from 1 to 500."],
  ]) {
    const bad = await h.client.get(`/console/api/admin/audit?${q}`, a.headers);
    t.same([bad.status, bad.body.error], [400, { code: 'INVALID_INPUT', message }], `?${q} is refused`);
  }
});

t.test('drill-down: keys, calls, ledger, orders, plans and audit of one user', async (t) => {
  const u = await consoleUser(h, '1');
  await h.client.get('/api/echo?msg=a', { 'X-API-Key': u.key });
  await adjust(u.userId, { kind: 'refund', amount: 0.01, reason: 'sorry' });
  const res = await h.client.get(`/console/api/admin/users/${u.userId}/overview`, a.headers);
  t.equal(res.status, 200);
  t.match(res.body.user, { id: u.userId, email: u.email, balance: 1, available: 1 });
  t.same(
    res.body.keys.map((k: { id: number }) => k.id),
    [u.keyId],
  );
  t.same(
    res.body.calls.map((c: { operation: string; charged: number; key_id: number }) => [
      c.operation,
      c.charged,
      c.key_id,
    ]),
    [['echo', 0.01, u.keyId]],
  );
  t.same(
    res.body.ledger.map((l: { kind: string; amount: number; balance_after: number }) => [
      l.kind,
      l.amount,
      l.balance_after,
    ]),
    [
      ['refund', 0.01, 1],
      ['charge', -0.01, 0.99],
      ['grant', 1, 1],
    ],
  );
  t.same(res.body.orders, []);
  t.same(res.body.subscriptions, []);
  t.same(
    res.body.audit.map((e: { action: string }) => e.action),
    ['user.refund'],
  );
  t.equal((await h.client.get('/console/api/admin/users/999999/overview', a.headers)).status, 404);
});

t.test(
  "exports stream users, orders and ledger as CSV with the user's email, newest first, filtered by user",
  async (t) => {
    const u = await consoleUser(h, '2', { email: 'csv.reader@example.com' });
    await adjust(u.userId, { kind: 'debit', amount: '0.5', reason: 'a, "quoted" reason' });
    const res = await h.client.get(`/console/api/admin/exports/ledger.csv?user_id=${u.userId}&lang=en`, a.headers);
    t.equal(res.status, 200);
    t.equal(res.headers['content-type'], 'text/csv; charset=utf-8');
    t.equal(res.headers['content-disposition'], 'attachment; filename="ledger.csv"');
    t.ok(res.text.startsWith('\uFEFFID,'), 'a UTF-8 BOM first');
    const local = localClock('Asia/Shanghai');
    const ledger = await h.services.store.db
      .selectFrom('ledger')
      .select(['id', 'created_at', 'ref'])
      .where('user_id', '=', u.userId)
      .orderBy('id', 'desc')
      .execute();
    t.equal(ledger.length, 2);
    t.equal(
      res.text,
      '\uFEFFID,User ID,User email,Time (Asia/Shanghai),Kind,Amount (TOKEN),Balance after (TOKEN),Reference,Operation,Note\r\n' +
        `${ledger[0].id},${u.userId},csv.reader@example.com,${local(ledger[0].created_at)},adjustment,-0.5,1.5,${ledger[0].ref},,` +
        `"a, ""quoted"" reason (by admin ${a.userId})"\r\n` +
        `${ledger[1].id},${u.userId},csv.reader@example.com,${local(ledger[1].created_at)},grant,2,2,test-grant:${u.userId},,\r\n`,
    );
    const users = await h.client.get('/console/api/admin/exports/users.csv?lang=en', a.headers);
    const userLines = users.text.trim().split(/\r?\n/);
    t.equal(userLines[0], 'ID,Email,Role,Status,Balance (TOKEN),Held (TOKEN),Time (Asia/Shanghai)');
    t.ok(userLines.some((l) => l.startsWith(`${u.userId},csv.reader@example.com,user,active,1.5,0,`)));
    const ids = userLines.slice(1).map((l) => Number(l.split(',')[0]));
    t.same(
      ids,
      [...ids].sort((x, y) => y - x),
      'newest first',
    );
    const placed = await h.client.post('/console/api/orders', { kind: 'package', id: 'p10' }, u.headers);
    t.equal(placed.status, 201);
    const created = await h.services.store.db
      .selectFrom('orders')
      .select('created_at')
      .where('id', '=', placed.body.order.id)
      .executeTakeFirstOrThrow();
    const orders = await h.client.get(`/console/api/admin/exports/orders.csv?user_id=${u.userId}`, {
      ...a.headers,
      'accept-language': 'zh-CN,zh;q=0.9',
    });
    t.equal(
      orders.text,
      '\uFEFF编号,用户编号,用户邮箱,类型,商品编号,商品名称,金额（TOKEN）,支付方式,状态,时间（Asia/Shanghai）,支付时间（Asia/Shanghai）\r\n' +
        `${placed.body.order.id},${u.userId},csv.reader@example.com,package,p10,10 TOKEN,10,manual,pending,${local(created.created_at)},\r\n`,
    );
    t.equal((await h.client.get('/console/api/admin/exports/ledger.csv', u.headers)).status, 403);
    const exportsAudited = await h.services.store.db
      .selectFrom('audit_log')
      .select(['action', 'target_type'])
      .where('actor_id', '=', a.userId)
      .where('action', '=', 'export')
      .execute();
    t.same(
      exportsAudited.map((r) => r.target_type),
      ['ledger', 'users', 'orders'],
    );
  },
);

t.test(
  'an export longer than one keyset chunk keeps every row once, newest first, each with its own email',
  async (t) => {
    // 2,500 pending orders (no money moves) of two buyers, alternating, in a window of their own (January 2020).
    const ann = await consoleUser(h, 0, { email: 'ann@chunks.example' });
    const bob = await consoleUser(h, 0, { email: 'bob@chunks.example' });
    const base = Date.UTC(2020, 0, 1);
    const rows = Array.from({ length: 2_500 }, (_, i) => ({
      user_id: i % 2 ? bob.userId : ann.userId,
      kind: 'package' as const,
      item_id: 'p10',
      item_name: '10 TOKEN',
      amount: 10_000_000,
      provider: 'manual',
      status: 'pending' as const,
      created_at: base + i * 1000,
      paid_at: null,
      confirmed_by: null,
    }));
    for (let i = 0; i < rows.length; i += 500)
      await h.services.store.db
        .insertInto('orders')
        .values(rows.slice(i, i + 500))
        .execute();
    const res = await h.client.get(
      `/console/api/admin/exports/orders.csv?lang=en&tz=UTC&from=${base}&to=${base + 2_500_000}`,
      a.headers,
    );
    t.equal(res.status, 200);
    t.ok(res.text.startsWith('\uFEFF'));
    const lines = res.text.slice(1).split('\r\n');
    t.equal(lines.pop(), '', 'ends with a line break');
    t.equal(
      lines.shift(),
      'ID,User ID,User email,Kind,Item ID,Item,Amount (TOKEN),Payment method,Status,Time (UTC),Paid at (UTC)',
    );
    const clock = localClock('UTC');
    const expected = await h.services.store.db
      .selectFrom('orders')
      .select(['id', 'user_id', 'created_at'])
      .where('created_at', '>=', base)
      .where('created_at', '<', base + 2_500_000)
      .orderBy('id', 'desc')
      .execute();
    t.equal(expected.length, 2_500);
    t.same(
      lines,
      expected.map(
        (o) =>
          `${o.id},${o.user_id},${Number(o.user_id) === ann.userId ? 'ann' : 'bob'}@chunks.example,package,p10,10 TOKEN,10,manual,pending,${clock(o.created_at)},`,
      ),
    );
    t.equal(lines.filter((l) => l.includes(',ann@chunks.example,')).length, 1_250);
  },
);

t.test('redeem-code batches and redemptions (plan changes) are audited', async (t) => {
  const u = await consoleUser(h, '0');
  const batch = await h.client.post(
    '/console/api/admin/redeem-codes',
    { kind: 'plan', id: 'basic', count: 1 },
    a.headers,
  );
  t.equal(batch.status, 201);
  const code = batch.body.codes[0];
  t.equal((await h.client.post('/console/api/redeem', { code }, u.headers)).status, 200);
  const rows = await h.services.store.db
    .selectFrom('audit_log')
    .selectAll()
    .where((eb) => eb.or([eb('action', '=', 'redeem_codes.create'), eb('subject_user_id', '=', u.userId)]))
    .orderBy('id')
    .execute();
  const mine = rows.filter((r) => r.action !== 'redeem_codes.create' || r.target_id === String(batch.body.batch_id));
  t.same(
    mine.map((r) => [r.actor_role, Number(r.actor_id), r.action, r.target_type, r.target_id]),
    [
      ['admin', a.userId, 'redeem_codes.create', 'redeem_batch', String(batch.body.batch_id)],
      ['user', u.userId, 'redeem', 'plan', 'basic'],
    ],
  );
  t.same(JSON.parse(mine[1].detail).code, code);
});
