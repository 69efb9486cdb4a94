// F3: an Idempotency-Key claim is a lease (the operation's timeout + HOLD_GRACE_MS), not a 24 h lock.
// - After kill -9 and a restart (SQLite, one process) the retry runs at once instead of 409 for 24 h.
// - A claim whose lease ran out is taken over by the retry; should the old call still finish, it cannot charge:
//   exactly one charge, and every later retry replays the charged call's response.
// - A charged call's response is stored in its capture transaction, byte for byte what was sent.

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { createApiKey } from '../../core/accounts/api-keys.js';
import { createUser } from '../../core/accounts/users.js';
import { balanceOf, postEntry } from '../../core/billing/ledger.js';
import { openStore } from '../../core/store/database.js';
import { migrateToLatest } from '../../core/store/migrate.js';
import { createTestApp, type TestApp } from '../helpers/create-test-app.js';
import { childEnv } from '../scale/backend.js';
import { startGateway } from '../scale/support.js';

const GRACE_MS = 400;
let h: TestApp;
t.before(async () => {
  h = await createTestApp({ settings: { holdGraceMs: GRACE_MS } });
});
t.afterEach(() => h.assertReconciled());
t.teardown(() => h.close());

const claimOf = (userId: number, key: string) =>
  h.services.store.db
    .selectFrom('idempotency')
    .selectAll()
    .where('user_id', '=', userId)
    .where('idem_key', '=', key)
    .executeTakeFirst();

t.test(
  'a pending claim holds for the operation timeout + grace, not 24 h; after it the retry runs and is charged once',
  async (t) => {
    const u = await h.user('1');
    const headers = { 'X-API-Key': u.key, 'Idempotency-Key': 'lease-1' };
    const slow = h.client.get('/api/echo?msg=lease&spinMs=600', headers);
    await new Promise((r) => setTimeout(r, 200));
    const claim = await claimOf(u.userId, 'lease-1');
    t.equal(claim?.state, 'pending');
    t.equal(
      Number(claim!.expires_at) - Number(claim!.created_at),
      3000 + GRACE_MS,
      'lease = timeout_ms of echo + HOLD_GRACE_MS',
    );
    const busy = await h.client.get('/api/echo?msg=lease&spinMs=600', headers);
    t.equal(busy.status, 409);
    t.match(busy.body, { error: { code: 'IDEMPOTENCY_CONFLICT', message: /still running/ }, deducted: 0 });
    t.ok(
      Number(busy.headers['retry-after']) >= 1 && Number(busy.headers['retry-after']) <= 5,
      'Retry-After within the lease',
    );
    const first = await slow;
    t.equal(first.status, 200);
    const replay = await h.client.get('/api/echo?msg=lease&spinMs=600', headers);
    t.equal(replay.headers['idempotent-replayed'], 'true');
    t.equal(replay.text, first.text, 'the stored response, byte for byte');
    t.same(await h.balance(u.userId), { balance: 990_000, held: 0 });
  },
);

t.test('a charged response is stored with its charge: the claim row holds exactly the bytes sent', async (t) => {
  const u = await h.user('1');
  const res = await h.client.get('/api/echo?msg=stored', { 'X-API-Key': u.key, 'Idempotency-Key': 'stored-1' });
  t.equal(res.status, 200);
  const claim = await claimOf(u.userId, 'stored-1');
  t.match(claim, { state: 'done', status: 200, owner: null });
  t.equal(claim!.response, res.text);
  const ledger = await h.ledger(u.userId);
  t.equal(ledger.at(-1)!.ref, res.body.request_id, 'the ledger reference is the request id of the stored response');
});

t.test(
  'lease expired while the old call still runs: the retry takes the key over, the old call cannot charge',
  async (t) => {
    const u = await h.user('1');
    const headers = { 'X-API-Key': u.key, 'Idempotency-Key': 'takeover-1' };
    const old = h.client.get('/api/echo?msg=takeover&spinMs=700', headers);
    await new Promise((r) => setTimeout(r, 150));
    // As if the lease had run out (a process that stopped answering): the next retry may take the key.
    await h.services.store.db
      .updateTable('idempotency')
      .set({ expires_at: Date.now() - 1 })
      .where('user_id', '=', u.userId)
      .where('idem_key', '=', 'takeover-1')
      .execute();
    const retry = h.client.get('/api/echo?msg=takeover&spinMs=700', headers);
    const [a, b] = await Promise.all([old, retry]);
    t.equal(a.status, 409, 'the old call lost its claim');
    t.match(a.body, {
      error: { code: 'IDEMPOTENCY_CONFLICT', message: /took the key over; this call was not charged/ },
      deducted: 0,
    });
    t.equal(b.status, 200);
    t.equal(b.body.deducted, 0.01);
    const charges = (await h.ledger(u.userId)).filter((r) => r.kind === 'charge');
    t.same(
      charges.map((r) => r.ref),
      [b.body.request_id],
      "exactly one charge, the retry's",
    );
    t.same(await h.balance(u.userId), { balance: 990_000, held: 0 });
    const later = await h.client.get('/api/echo?msg=takeover&spinMs=700', headers);
    t.equal(later.text, b.text, 'later retries replay the charged response');
  },
);

t.test('kill -9 during a call, restart: the retry runs at once (not 409 for 24 h), charged once', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tollgate-idem-kill-'));
  const store = openStore({ databaseUrl: null, dataDir });
  await migrateToLatest(store.db as never, 'sqlite');
  const user = await createUser(store.db, 'killed@example.com', 'password123', 'user');
  await postEntry(store.db, { userId: user.id, amount: 1_000_000, kind: 'grant', ref: 'kill-grant' });
  const { secret } = await createApiKey(store.db, user.id, 'k');
  await store.close();
  const env = childEnv({
    PORT: '0',
    DATA_DIR: dataDir,
    OPERATIONS_FILE: 'test/fixtures/operations.test.yaml',
    PLUGIN_DIRS: 'plugins:test/fixtures/plugins',
    TEST_SECRET: 'x',
    LOG_LEVEL: 'warn',
    SANDBOX_POOL_SIZE: '1',
  });
  const headers = { 'X-API-Key': secret, 'Idempotency-Key': 'killed-1' };
  const path = '/api/echo?msg=kill&spinMs=2500';
  const g1 = await startGateway(env);
  const inFlight = fetch(`http://127.0.0.1:${g1.port}${path}`, { headers }).then(
    (r) => r.status,
    () => 0,
  );
  await new Promise((r) => setTimeout(r, 800));
  await g1.stop('SIGKILL');
  t.equal(await inFlight, 0, 'the client saw the connection die');
  const g2 = await startGateway(env);
  t.teardown(() => g2.stop());
  const retry = await fetch(`http://127.0.0.1:${g2.port}${path}`, { headers });
  const body = (await retry.json()) as { deducted: number };
  t.equal(retry.status, 200, 'the retry runs');
  t.equal(body.deducted, 0.01);
  const check = openStore({ databaseUrl: null, dataDir });
  t.same(await balanceOf(check.db, user.id), { balance: 990_000, held: 0 }, 'charged once, nothing left held');
  await check.close();
});
