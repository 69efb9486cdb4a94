// Two gateway instances on one PostgreSQL schema and one Redis prefix (as two cluster workers): exactly one holds the
// canary lease and probes, the other takes over once it stops; a customer's success on either instance is counted
// instead of a probe (passive first), and no canary call reaches the customer's usage.

import { readFileSync } from 'node:fs';
import nock from 'nock';
import t from 'tap';
import { createCanaryRunner } from '../../core/health/canary-runner.js';
import { createTestApp, type TestApp } from '../helpers/create-test-app.js';
import { freshPgRedis, unreachable } from '../scale/backend.js';

nock.disableNetConnect();
const YAML = readFileSync('test/fixtures/operations.test.yaml', 'utf8').replace(
  /( {2}- code: echo\n)/,
  `$1    canary:\n      interval: 60\n      samples:\n        - input: { msg: canary }\n          assert: ["input.msg = 'canary'", "operation = 'echo'"]\n`,
);

const why = await unreachable();
if (why) {
  t.plan(0, `canary lease: skipped, ${why}`);
} else {
  const backend = await freshPgRedis();
  const apps: TestApp[] = [];
  t.teardown(async () => {
    for (const a of apps) await a.close();
    await backend.close();
  });
  // One first: it migrates; the second finds the schema ready.
  apps.push(await createTestApp({ operationsYaml: YAML, settings: backend.settings }));
  apps.push(await createTestApp({ operationsYaml: YAML, settings: backend.settings }));
  const [a, b] = apps as [TestApp, TestApp];
  const db = a.services.store.db;
  const ra = createCanaryRunner(a.services);
  const rb = createCanaryRunner(b.services);
  const canaryRows = async () =>
    (await db.selectFrom('canary_results').select(['source', 'ok']).orderBy('id').execute()).map(
      (r) => `${r.source}:${r.ok}`,
    );

  t.test('both tick at once: one probes, the other does nothing', async (t) => {
    const [x, y] = await Promise.all([ra.tick(), rb.tick()]);
    t.same([x.length, y.length].sort(), [0, 1]);
    const probe = [...x, ...y][0];
    t.match(probe, { operation: 'echo', platform: '', state: 'ok', verdict: { ok: true } });
    t.same(await canaryRows(), ['canary:1']);
    const lease = await db.selectFrom('leases').selectAll().executeTakeFirstOrThrow();
    t.equal(lease.owner, x.length ? ra.owner : rb.owner);
    // Not due again yet: a second round probes nothing.
    t.same([...(await ra.tick()), ...(await rb.tick())], []);
    t.same(await canaryRows(), ['canary:1']);
  });

  t.test('a customer success on the other instance is counted instead of a probe', async (t) => {
    const u = await b.user('1');
    const res = await b.client.get('/api/echo?msg=live', { 'X-API-Key': u.key });
    t.equal(res.status, 200);
    await db.updateTable('operation_status').set({ next_probe_at: 0 }).execute();
    const before = (await a.callLog()).filter((r) => r.canary === 1).length;
    t.same([...(await ra.tick()), ...(await rb.tick())], [], 'no probe made');
    t.same(await canaryRows(), ['canary:1', 'live:1']);
    t.equal((await a.callLog()).filter((r) => r.canary === 1).length, before, 'no canary call');
    // The customer's own log has their one call and nothing of the canary.
    const mine = await a.callLog(u.userId);
    t.equal(mine.length, 1);
    t.match(mine[0], { canary: 0, charged: 10_000 });
  });

  t.test('the holder stops: the other instance takes the lease over', async (t) => {
    const lease = await db.selectFrom('leases').selectAll().executeTakeFirstOrThrow();
    const [holder, other] = lease.owner === ra.owner ? [ra, rb] : [rb, ra];
    await holder.start(3_600_000)();
    t.equal(await db.selectFrom('leases').selectAll().executeTakeFirst(), undefined, 'released on stop');
    await db.updateTable('operation_status').set({ next_probe_at: 0 }).execute();
    const reports = await other.tick();
    t.equal(reports.length, 1);
    t.equal((await db.selectFrom('leases').selectAll().executeTakeFirstOrThrow()).owner, other.owner);
    t.same(await holder.tick(), [], 'the stopped one no longer wins');
  });
}
