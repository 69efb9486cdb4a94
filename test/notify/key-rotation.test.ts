// Key rotation with overlap: same id, name, limits and history; the old secret works for the grace period and
// then answers 403 KEY_EXPIRED; grace 0 ends it at once; the call log and CSV filter by key.
import t from 'tap';
import { consoleUser } from '../console/support.js';
import { createTestApp, type TestApp } from '../helpers/create-test-app.js';

let h: TestApp;
t.before(async () => {
  h = await createTestApp();
});
t.afterEach(() => h.assertReconciled());
t.teardown(() => h.close());

const HOUR = 3600_000;

t.test(
  'rotate keeps id, name and limits; both secrets work during the grace; the old one expires after it',
  async (t) => {
    const u = await consoleUser(h, 1, { allowed_codes: ['echo'], max_concurrency: 3 });
    const before = (await h.client.get('/console/api/keys', u.headers)).body.keys[0];
    t.equal((await h.client.get('/api/echo?msg=a', { 'X-API-Key': u.key })).status, 200);

    const res = await h.client.post(`/console/api/keys/${u.keyId}/rotate`, { grace_hours: 2 }, u.headers);
    t.equal(res.status, 200);
    const { key, secret, old_secret_valid_until } = res.body;
    t.match(secret, /^sk_/);
    t.not(secret, u.key);
    t.equal(key.id, u.keyId);
    t.equal(key.name, before.name);
    t.same(key.limits, before.limits);
    t.not(key.prefix, before.prefix, 'the display prefix follows the new secret');
    const until = Date.parse(old_secret_valid_until);
    t.ok(Math.abs(until - (Date.now() + 2 * HOUR)) < 5_000);
    t.equal(key.previous_secret_valid_until, old_secret_valid_until);

    const oldCall = await h.client.get('/api/echo?msg=b', { 'X-API-Key': u.key });
    const newCall = await h.client.get('/api/echo?msg=c', { 'X-API-Key': secret });
    t.equal(oldCall.status, 200, 'old secret still works in the grace period');
    t.equal(newCall.status, 200);
    t.equal(
      (await h.client.get('/api/item?id=1', { 'X-API-Key': secret })).body.error.code,
      'OPERATION_NOT_ALLOWED',
      'limits kept',
    );
    const log = await h.callLog(u.userId);
    t.same(
      log.filter((r) => r.status === 200).map((r) => Number(r.key_id)),
      [u.keyId, u.keyId, u.keyId],
      'one key, one history',
    );

    // The grace ends: the old secret is refused, the new one works.
    await h.services.store.db
      .updateTable('api_keys')
      .set({ prev_expires_at: Date.now() - 1 })
      .where('id', '=', u.keyId)
      .execute();
    h.services.keys.invalidateAll();
    const expired = await h.client.get('/api/echo?msg=d', { 'X-API-Key': u.key });
    t.equal(expired.status, 403);
    t.equal(expired.body.error.code, 'KEY_EXPIRED');
    t.equal(expired.body.deducted, 0);
    t.equal((await h.client.get('/api/echo?msg=e', { 'X-API-Key': secret })).status, 200);
    t.same(await h.balance(u.userId), { balance: 1_000_000 - 4 * 10_000, held: 0 });

    const audit = await h.services.store.db
      .selectFrom('audit_log')
      .selectAll()
      .where('subject_user_id', '=', u.userId)
      .where('action', '=', 'key.rotate')
      .execute();
    t.equal(audit.length, 1);
    t.same(JSON.parse(audit[0].detail), { prefix: key.prefix, grace_hours: 2 });
    t.notOk(audit[0].detail.includes(secret.slice(10)), 'no secret in the audit log');
  },
);

t.test('grace 0 retires the old secret at once, across the key cache', async (t) => {
  const u = await consoleUser(h, 1);
  t.equal((await h.client.get('/api/echo?msg=a', { 'X-API-Key': u.key })).status, 200, 'old secret cached');
  const res = await h.client.post(`/console/api/keys/${u.keyId}/rotate`, { grace_hours: 0 }, u.headers);
  t.equal(res.body.old_secret_valid_until, null);
  t.notOk('previous_secret_valid_until' in res.body.key);
  const old = await h.client.get('/api/echo?msg=b', { 'X-API-Key': u.key });
  t.equal(old.status, 401);
  t.equal(old.body.error.code, 'INVALID_API_KEY');
  t.equal((await h.client.get('/api/echo?msg=c', { 'X-API-Key': res.body.secret })).status, 200);
});

t.test('rotation input is checked; other users keys are not found', async (t) => {
  const u = await consoleUser(h, 0);
  const other = await consoleUser(h, 0);
  t.same((await h.client.post(`/console/api/keys/${u.keyId}/rotate`, { grace_hours: 721 }, u.headers)).body.error, {
    code: 'INVALID_INPUT',
    message: "'grace_hours' must be an integer from 0 to 720.",
  });
  t.same((await h.client.post(`/console/api/keys/${u.keyId}/rotate`, { grace: 1 }, u.headers)).body.error, {
    code: 'INVALID_INPUT',
    message: "Unknown field 'grace'; allowed: grace_hours.",
  });
  const foreign = await h.client.post(`/console/api/keys/${u.keyId}/rotate`, {}, other.headers);
  t.equal(foreign.status, 404);
  t.equal(foreign.body.error.code, 'RESOURCE_NOT_FOUND');
  t.equal(
    (await h.client.get('/api/echo?msg=a', { 'X-API-Key': u.key })).status,
    402,
    'the key still has its old secret (no balance: 402, not 401)',
  );
});

t.test('call log, CSV and usage filter by key; a rotated key keeps one history', async (t) => {
  const u = await consoleUser(h, 1);
  const second = await h.client.post('/console/api/keys', { name: 'second' }, u.headers);
  await h.client.get('/api/echo?msg=a', { 'X-API-Key': u.key });
  const rotated = await h.client.post(`/console/api/keys/${u.keyId}/rotate`, {}, u.headers);
  await h.client.get('/api/echo?msg=b', { 'X-API-Key': rotated.body.secret });
  await h.client.get('/api/echo?msg=c', { 'X-API-Key': second.body.secret });
  const calls = await h.client.get(`/console/api/calls?key_id=${u.keyId}`, u.headers);
  t.same(
    calls.body.calls.map((c: { key_id: number }) => c.key_id),
    [u.keyId, u.keyId],
  );
  const other = await h.client.get(`/console/api/calls?key_id=${second.body.key.id}`, u.headers);
  t.equal(other.body.calls.length, 1);
  const csv = await h.client.get(`/console/api/calls.csv?key_id=${second.body.key.id}`, u.headers);
  t.equal(csv.text.trim().split(/\r?\n/).length, 2, 'header and one row');
  const usage = await h.client.get(`/console/api/usage?key_id=${u.keyId}`, u.headers);
  t.same(
    usage.body.by_operation.map((o: { operation: string; calls: number; charged: number }) => [
      o.operation,
      o.calls,
      o.charged,
    ]),
    [['echo', 2, 0.02]],
  );
  const all = await h.client.get('/console/api/usage', u.headers);
  t.same(
    all.body.by_operation.map((o: { calls: number }) => o.calls),
    [3],
  );
  t.same((await h.client.get('/console/api/calls?key_id=abc', u.headers)).body.error, {
    code: 'INVALID_INPUT',
    message: "'key_id' must be an integer from 1 to 9007199254740991.",
  });
});
