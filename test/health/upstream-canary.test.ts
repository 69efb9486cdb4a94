// Canary status per configured upstream, through the whole gateway (the http plugin in its isolate, nock for the
// two upstreams): each upstream is probed on its own; when the first tier's status goes down it leaves the
// rotation (the next customer call goes straight to the second, the first is not even tried), and a passing probe
// brings it back at once. Canary calls are never charged; a customer's call credits the upstream that served it.
import { resolve } from 'node:path';
import nock from 'nock';
import t from 'tap';
import { createCanaryRunner } from '../../core/health/canary-runner.js';
import { readStatuses } from '../../core/health/status-store.js';
import { CANARY_EMAIL } from '../../core/health/system-account.js';
import { upstreamHealthOf } from '../../core/state/upstream-health.js';
import { admin } from '../console/support.js';
import { createTestApp, type TestApp } from '../helpers/create-test-app.js';
import { ok, ITEM_YAML as YAML } from './upstream-support.js';

nock.disableNetConnect();

let h: TestApp;
t.before(async () => {
  h = await createTestApp({ operationsYaml: YAML, pluginDirs: [resolve('plugins')] });
});
t.afterEach(async () => {
  nock.cleanAll();
  await h.assertReconciled();
});
t.teardown(() => h.close());

const runner = () => createCanaryRunner(h.services);
const statusOf = async (platform: string) =>
  (await readStatuses(h.services.store.db)).find((r) => r.operation === 'item' && r.platform === platform);
const health = () => upstreamHealthOf(h.services.state);

t.test('each upstream has a status; down leaves the rotation, a pass restores it; canaries are free', async (t) => {
  // The operation's own probe goes through the failover (alpha serves); each upstream is then probed on its own.
  const alpha = nock('https://alpha.example.com').get('/v1/items/probe').times(2).reply(200, ok('probe'));
  const beta = nock('https://beta.example.com').get('/v1/items/probe').reply(200, ok('probe'));
  const first = await runner().runNow('item');
  t.same(
    first.map((r) => [r.platform, r.verdict.ok, r.state]),
    [
      ['', true, 'ok'],
      ['upstream:alpha', true, 'ok'],
      ['upstream:beta', true, 'ok'],
    ],
  );
  t.ok(alpha.isDone() && beta.isDone());

  // alpha starts failing: its first failed probe makes it degraded (still in rotation), the second down.
  nock('https://alpha.example.com').get('/v1/items/probe').times(2).reply(500, 'oops');
  const [d1] = await runner().runNow('item', 'upstream:alpha');
  t.match(d1, { platform: 'upstream:alpha', state: 'degraded', verdict: { ok: false, class: 'upstream_error' } });
  t.equal(await health().down('item', 'alpha'), null, 'degraded is not yet out of rotation');
  const [d2] = await runner().runNow('item', 'upstream:alpha');
  t.equal(d2.state, 'down');
  t.match(await statusOf('upstream:alpha'), { state: 'down', failures: 2, lastClass: 'upstream_error' });
  t.match(await statusOf('upstream:beta'), { state: 'ok' });
  const down = await health().down('item', 'alpha');
  t.match(down, { reason: /^canary: UPSTREAM_FAILED/ });
  // Out until the next probe (10 min after a second failure) and a minute's margin.
  t.ok(down!.until > Date.now() + 600_000 && down!.until <= Date.now() + 661_000);
  const a = await admin(h);
  const listed = await h.client.get('/console/api/admin/operations', a.headers);
  t.same(
    listed.body.operations
      .find((o: { code: string }) => o.code === 'item')
      .upstreams.map((u: Record<string, unknown>) => [u.id, u.state, u.until, u.cost_per_call, u.priority, u.weight]),
    [
      ['alpha', 'demoted', new Date(down!.until).toISOString(), 0.001, 1, 1],
      ['beta', 'ok', null, 0.001, 2, 1],
    ],
    'the admin sees alpha demoted by its canary',
  );

  // The next customer call goes straight to beta: alpha's interceptor is never used.
  const u = await h.user('1');
  const skipped = nock('https://alpha.example.com').get('/v1/items/c1').reply(200, ok('c1'));
  const served = nock('https://beta.example.com').get('/v1/items/c1').reply(200, ok('c1'));
  const res = await h.client.get('/api/item?id=c1', { 'X-API-Key': u.key });
  t.equal(res.status, 200);
  t.same(res.body.data, { id: 'c1', provider: 'beta' });
  t.equal(res.headers['x-upstream'], 'beta');
  t.ok(served.isDone());
  t.notOk(skipped.isDone(), 'the demoted upstream was not tried');
  t.same(await h.balance(u.userId), { balance: 990_000, held: 0 });
  t.ok(await h.services.liveSuccess.last('item', 'upstream:beta'), 'the live call credits the upstream that served');
  nock.cleanAll();

  // The demoted upstream is still probed (pinned), and its first pass puts it back at once.
  nock('https://alpha.example.com').get('/v1/items/probe').reply(200, ok('probe'));
  const [r] = await runner().runNow('item', 'upstream:alpha');
  t.match(r, { state: 'ok', verdict: { ok: true } });
  t.equal(await health().down('item', 'alpha'), null);
  const back = nock('https://alpha.example.com').get('/v1/items/c2').reply(200, ok('c2'));
  const res2 = await h.client.get('/api/item?id=c2', { 'X-API-Key': u.key });
  t.equal(res2.headers['x-upstream'], 'alpha');
  t.ok(back.isDone());
  t.same(await h.balance(u.userId), { balance: 980_000, held: 0 });

  // Six canary calls, none charged: no ledger row, no balance, each logged free with the upstream it reached.
  const db = h.services.store.db;
  const canary = await db.selectFrom('users').select('id').where('email', '=', CANARY_EMAIL).executeTakeFirstOrThrow();
  t.same(await h.ledger(Number(canary.id)), []);
  t.same(await h.balance(Number(canary.id)), { balance: 0, held: 0 });
  const log = await h.callLog(Number(canary.id));
  t.equal(log.length, 6);
  t.ok(log.every((row) => row.charged === 0 && row.canary === 1));
  t.same(log.map((row) => row.upstream).sort(), ['alpha', 'alpha', 'alpha', 'alpha', 'alpha', 'beta']);

  // The margin report sells no canary call: the customers' two calls count; the probes' upstream cost (three that
  // alpha answered, one beta) is shown apart and comes off the margin.
  const margin = await h.client.get('/console/api/admin/margin?days=1', a.headers);
  t.equal(margin.status, 200);
  t.same(
    margin.body.rows.map((r: Record<string, unknown>) =>
      Object.fromEntries(Object.entries(r).filter(([k]) => k !== 'day')),
    ),
    [
      { operation: 'item', upstream: 'alpha', calls: 1, revenue: 0.01, cost: 0.001, canary_cost: 0.003, margin: 0.006 },
      { operation: 'item', upstream: 'beta', calls: 1, revenue: 0.01, cost: 0.001, canary_cost: 0.001, margin: 0.008 },
    ],
  );
  const csv = await h.client.get('/console/api/admin/margin?days=1&format=csv', a.headers);
  t.match(csv.text, /^day,operation,upstream,calls,revenue,cost,canary_cost,margin\n/);
  t.match(csv.text, /,item,alpha,1,0\.01,0\.001,0\.003,0\.006\n[^\n]*,item,beta,1,0\.01,0\.001,0\.001,0\.008\n$/);
});
