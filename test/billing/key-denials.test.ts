// Each kind of refused key has its own error code and costs nothing: disabled, expired, wrong IP, an operation
// the key may not call. The test client always comes from 127.0.0.1. A refused key gets no call-log row: it is
// counted per key, address and minute; a call the key may not make is a logged call.
import t, { type Test } from 'tap';
import { createTestApp, type TestApp } from '../helpers/create-test-app.js';

let h: TestApp;
t.before(async () => {
  h = await createTestApp();
});
t.afterEach(() => h.assertReconciled());
t.teardown(() => h.close());

async function refused(
  t: Test,
  key: string,
  userId: number,
  status: number,
  code: string,
  message: string,
): Promise<void> {
  const res = await h.client.get('/api/echo?msg=x', { 'X-API-Key': key });
  t.equal(res.status, status);
  t.same(res.body.error, { code, message });
  t.equal(res.body.deducted, 0);
  t.notOk('remaining' in res.body, 'a refused key does not read the balance');
  t.same(await h.balance(userId), { balance: 1_000_000, held: 0 });
  t.equal((await h.ledger(userId)).length, 1, 'only the grant');
  if (code === 'OPERATION_NOT_ALLOWED') {
    const log = await h.callLog(userId);
    t.match(log[log.length - 1], { status, error_code: code, charged: 0 });
    return;
  }
  // A refused key proves nothing: counted per key, address and minute, no call-log row.
  t.same(await h.callLog(userId), [], 'no call-log row');
  await h.services.refused.log.flush();
  const counted = await h.services.store.db
    .selectFrom('refused_requests')
    .select(['kind', 'source', 'target', 'code', 'status', 'count'])
    .where('user_id', '=', userId)
    .execute();
  t.same(
    counted.map((r) => ({ ...r, count: Number(r.count) })),
    [{ kind: 'api', source: '127.0.0.1', target: '', code, status, count: 1 }],
  );
}

t.test('disabled key: 403 KEY_DISABLED', async (t) => {
  const u = await h.user('1');
  await h.services.store.db.updateTable('api_keys').set({ status: 'disabled' }).where('id', '=', u.keyId).execute();
  await refused(t, u.key, u.userId, 403, 'KEY_DISABLED', 'This API key is disabled.');
});

t.test('key of a disabled account: 403 KEY_DISABLED', async (t) => {
  const u = await h.user('1');
  await h.services.store.db.updateTable('users').set({ status: 'disabled' }).where('id', '=', u.userId).execute();
  await refused(t, u.key, u.userId, 403, 'KEY_DISABLED', 'The account this API key belongs to is disabled.');
});

t.test('expired key: 403 KEY_EXPIRED', async (t) => {
  const at = Date.now() - 1000;
  const u = await h.user('1', { expires_at: at });
  await refused(t, u.key, u.userId, 403, 'KEY_EXPIRED', `This API key expired at ${new Date(at).toISOString()}.`);
});

t.test('allow-list 10.0.0.0/8 denies 127.0.0.1: 403 IP_NOT_ALLOWED', async (t) => {
  const u = await h.user('1', { ip_allow: ['10.0.0.0/8'] });
  await refused(t, u.key, u.userId, 403, 'IP_NOT_ALLOWED', 'This API key may not be used from 127.0.0.1.');
});

t.test('allow-list 127.0.0.0/8 lets 127.0.0.1 through', async (t) => {
  const u = await h.user('1', { ip_allow: ['10.0.0.0/8', '127.0.0.0/8'] });
  const res = await h.client.get('/api/echo?msg=x', { 'X-API-Key': u.key });
  t.equal(res.status, 200);
  t.equal(res.body.deducted, 0.01);
});

t.test('operation outside allowed_codes: 403 OPERATION_NOT_ALLOWED', async (t) => {
  const u = await h.user('1', { allowed_codes: ['item'] });
  await refused(t, u.key, u.userId, 403, 'OPERATION_NOT_ALLOWED', 'This API key may not call "echo".');
  const ok = await h.client.get('/api/items/42', { 'X-API-Key': u.key });
  t.equal(ok.status, 200, 'an allowed operation works');
});
