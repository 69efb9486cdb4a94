// Redeem codes: admin batches (random, unambiguous, CSV export) and single use under concurrency.
import t from 'tap';
import { normaliseRedeemCode } from '../../core/billing/redeem.js';
import { admin, consoleUser } from '../console/support.js';
import { createTestApp, type TestApp } from '../helpers/create-test-app.js';

let h: TestApp;
let adminHeaders: Record<string, string>;
let adminId: number;
t.before(async () => {
  h = await createTestApp();
  const a = await admin(h);
  adminHeaders = a.headers;
  adminId = a.userId;
});
t.afterEach(() => h.assertReconciled());
t.teardown(() => h.close());

const makeCodes = (body: Record<string, unknown>) =>
  h.client.post('/console/api/admin/redeem-codes', body, adminHeaders);
const CODE = /^[2-9A-HJ-NP-Z]{4}-[2-9A-HJ-NP-Z]{4}-[2-9A-HJ-NP-Z]{4}-[2-9A-HJ-NP-Z]{4}$/;

t.test('an admin makes a batch: distinct codes from an unambiguous alphabet', async (t) => {
  const res = await makeCodes({ kind: 'package', id: 'p10', count: 20 });
  t.equal(res.status, 201);
  t.match(res.body, { batch_id: Number, kind: 'package', id: 'p10', count: 20, expires_at: null });
  t.equal(res.body.codes.length, 20);
  t.equal(new Set(res.body.codes).size, 20);
  for (const c of res.body.codes) t.match(c, CODE);
  t.equal(
    normaliseRedeemCode(res.body.codes[0].toLowerCase().replace(/-/g, ' ')),
    res.body.codes[0],
    'case and separators do not matter',
  );
});

t.test('CSV export of a batch', async (t) => {
  const res = await makeCodes({ kind: 'plan', id: 'basic', count: 3, expires_at: '2099-12-31T00:00:00Z' });
  const csv = await h.client.get(
    `/console/api/admin/redeem-codes/${res.body.batch_id}.csv?lang=en&tz=UTC`,
    adminHeaders,
  );
  t.equal(csv.status, 200);
  t.match(csv.headers['content-type'], /^text\/csv/);
  t.match(csv.headers['content-disposition'], `redeem-codes-${res.body.batch_id}.csv`);
  const lines = csv.text.trimEnd().split('\r\n');
  t.equal(lines[0], '\uFEFFCode,Kind,Item ID,Time (UTC),Expires at (UTC),Redeemed by,Redeemed at (UTC)');
  t.same(
    lines
      .slice(1)
      .map((l) => l.split(',')[0])
      .sort(),
    [...res.body.codes].sort(),
  );
  for (const l of lines.slice(1)) t.match(l, /^[^,]+,plan,basic,\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,2099-12-31 00:00:00,,$/);
  t.equal((await h.client.get('/console/api/admin/redeem-codes/999999.csv', adminHeaders)).status, 404);
  const batches = await h.client.get('/console/api/admin/redeem-codes', adminHeaders);
  t.match(batches.body.batches[0], { batch_id: res.body.batch_id, kind: 'plan', id: 'basic', count: 3, redeemed: 0 });
});

t.test('batch validation and admin-only access', async (t) => {
  t.same((await makeCodes({ kind: 'package', id: 'nope', count: 1 })).body.error, {
    code: 'RESOURCE_NOT_FOUND',
    message: 'There is no package "nope".',
  });
  t.equal(
    (await makeCodes({ kind: 'package', id: 'p10', count: 0 })).body.error.message,
    "'count' must be an integer from 1 to 1000.",
  );
  t.equal(
    (await makeCodes({ kind: 'package', id: 'p10', count: 1, expires_at: '2000-01-01' })).body.error.message,
    "'expires_at' must be in the future.",
  );
  const u = await consoleUser(h, 0);
  const forbidden = await h.client.post(
    '/console/api/admin/redeem-codes',
    { kind: 'package', id: 'p10', count: 1 },
    u.headers,
  );
  t.equal(forbidden.status, 403);
  t.equal(forbidden.body.error.code, 'FORBIDDEN');
  t.equal(
    (await h.client.post('/console/api/admin/redeem-codes', { kind: 'package', id: 'p10', count: 1 })).status,
    401,
  );
});

t.test('redeeming a package code: tokens once; used, unknown and expired codes get clear errors', async (t) => {
  const [code] = (await makeCodes({ kind: 'package', id: 'p10', count: 1 })).body.codes;
  const u = await consoleUser(h, 0);
  const res = await h.client.post('/console/api/redeem', { code: code.toLowerCase() }, u.headers);
  t.equal(res.status, 200);
  t.same(res.body, { code, kind: 'package', id: 'p10', tokens: 10, balance: 10, plan_ends_at: null });
  t.same(await h.ledger(u.userId), [
    { amount: 10_000_000, kind: 'redeem', ref: `redeem:${code}`, balance_after: 10_000_000, operation: null },
  ]);
  const again = await h.client.post('/console/api/redeem', { code }, u.headers);
  t.equal(again.status, 409);
  t.same(again.body.error, { code: 'CONFLICT', message: 'This redeem code has been used already.' });
  const unknown = await h.client.post('/console/api/redeem', { code: 'AAAA-BBBB-CCCC-DDDD' }, u.headers);
  t.equal(unknown.status, 404);
  t.same(unknown.body.error, {
    code: 'RESOURCE_NOT_FOUND',
    message: 'This redeem code does not exist. Check it for typos.',
  });
  const malformed = await h.client.post('/console/api/redeem', { code: 'hello' }, u.headers);
  t.equal(malformed.status, 404);
  t.match(malformed.body.error.message, /not a valid redeem code/);
  const [old] = (await makeCodes({ kind: 'package', id: 'p10', count: 1, expires_at: '2099-01-01' })).body.codes;
  await h.services.store.db.updateTable('redeem_codes').set({ expires_at: 1_000 }).where('code', '=', old).execute();
  const expired = await h.client.post('/console/api/redeem', { code: old }, u.headers);
  t.equal(expired.status, 409);
  t.same(expired.body.error, { code: 'CONFLICT', message: 'This redeem code expired at 1970-01-01T00:00:01.000Z.' });
  t.same(await h.balance(u.userId), { balance: 10_000_000, held: 0 });
});

t.test('a plan code starts the plan and grants its tokens', async (t) => {
  const [code] = (await makeCodes({ kind: 'plan', id: 'basic', count: 1 })).body.codes;
  const u = await consoleUser(h, 0);
  const res = await h.client.post('/console/api/redeem', { code }, u.headers);
  t.match(res.body, { code, kind: 'plan', id: 'basic', tokens: 1, balance: 1, plan_ends_at: /^\d{4}-/ });
  const me = await h.client.get('/console/api/me', u.headers);
  t.equal(me.body.plan.id, 'basic');
  t.equal(me.body.plan.ends_at, res.body.plan_ends_at);
  t.same(
    (await h.ledger(u.userId)).map((r) => [r.amount, r.kind, r.ref]),
    [[1_000_000, 'plan_grant', `redeem:${code}`]],
  );
});

t.test(
  '50 simultaneous redemptions of one code: one succeeds, balance rises once, 49 are told it is used',
  async (t) => {
    const [code] = (await makeCodes({ kind: 'package', id: 'p10', count: 1 })).body.codes;
    const users = await Promise.all(Array.from({ length: 5 }, () => consoleUser(h, 0)));
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => h.client.post('/console/api/redeem', { code }, users[i % 5].headers)),
    );
    const ok = results.filter((r) => r.status === 200);
    t.equal(ok.length, 1);
    const refused = results.filter((r) => r.status === 409);
    t.equal(refused.length, 49);
    for (const r of refused)
      t.same(r.body.error, { code: 'CONFLICT', message: 'This redeem code has been used already.' });
    const balances = await Promise.all(users.map((u) => h.balance(u.userId)));
    t.same(
      balances.map((b) => b.balance).sort((a, b) => b - a),
      [10_000_000, 0, 0, 0, 0],
    );
    const rows = await h.services.store.db
      .selectFrom('ledger')
      .selectAll()
      .where('ref', '=', `redeem:${code}`)
      .execute();
    t.equal(rows.length, 1);
    const row = await h.services.store.db
      .selectFrom('redeem_codes')
      .selectAll()
      .where('code', '=', code)
      .executeTakeFirstOrThrow();
    t.equal(Number(row.redeemed_by), Number(rows[0].user_id));
    t.not(Number(row.redeemed_by), adminId);
  },
);
