// operations.yaml `charge_when`: a success is charged by default; an answer the expression calls free is sent
// with deducted 0, no ledger row and the balance unchanged (the shipped phone operation: precision none is free).
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import t from 'tap';
import { createTestApp, type TestApp } from '../helpers/create-test-app.js';

// SQLite by default; TOLLGATE_TEST_BACKEND=pg-redis runs it on PostgreSQL row holds.
t.test('charge_when', async (t) => {
  const h: TestApp = await createTestApp({
    operationsYaml: readFileSync('operations.yaml', 'utf8'),
    pluginDirs: [resolve('plugins')],
  });
  t.teardown(() => h.close());

  t.test('phone with precision none: 200, deducted 0, no ledger row, balance unchanged', async (t) => {
    const u = await h.user('1');
    const res = await h.client.get('/api/phone?phone=19912345678', { 'X-API-Key': u.key });
    t.equal(res.status, 200);
    t.equal(res.body.data.precision, 'none');
    t.equal(res.body.deducted, 0);
    t.equal(res.body.remaining, 1);
    t.same(await h.balance(u.userId), { balance: 1_000_000, held: 0 });
    t.same(
      (await h.ledger(u.userId)).filter((r) => r.kind === 'charge'),
      [],
    );
    // A second call is a cache hit of the same answer: free again.
    const again = await h.client.get('/api/phone?phone=19912345678', { 'X-API-Key': u.key });
    t.equal(again.body.cached, true);
    t.equal(again.body.deducted, 0);
    t.same(await h.balance(u.userId), { balance: 1_000_000, held: 0 });
    await h.assertReconciled();
  });

  t.test('phone with a city: charged the price as before', async (t) => {
    const u = await h.user('1');
    const res = await h.client.get('/api/phone?phone=13800138000', { 'X-API-Key': u.key });
    t.equal(res.body.data.precision, 'city');
    t.equal(res.body.deducted, 0.005);
    t.same(await h.balance(u.userId), { balance: 995_000, held: 0 });
    t.equal((await h.ledger(u.userId)).filter((r) => r.kind === 'charge').length, 1);
    await h.assertReconciled();
  });
});
