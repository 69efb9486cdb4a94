// A call answered from memory — a free cache hit under a plan, on one process — goes through every stage without
// a promise (kernel/maybe-promise.ts): each await it used to pay for was a trip through the microtask queue (issue
// 14). Its answer, ledger and call log are those of the same call made over HTTP.
import nock from 'nock';
import t from 'tap';
import { newCall } from '../../core/pipeline/begin-call.js';
import { runCall } from '../../core/pipeline/index.js';
import { subscribe } from '../console/support.js';
import { createTestApp, type TestApp } from '../helpers/create-test-app.js';

nock.disableNetConnect();
let h: TestApp;
t.before(async () => {
  h = await createTestApp();
});
t.afterEach(() => h.assertReconciled());
t.teardown(() => h.close());

const callOf = (key: string, code: string, msg: string, requestId: string) =>
  newCall(
    {
      requestId,
      startedNs: process.hrtime.bigint(),
      method: 'GET',
      path: `/api/${code}`,
      ip: '127.0.0.1',
      headers: { 'x-api-key': key },
      query: { msg },
      body: undefined,
      bodyKind: 'none',
    },
    h.services,
  );

t.test('a free cache hit under a plan is answered at once, and logged like any call', async (t) => {
  if (h.services.store.dialect !== 'sqlite') {
    t.pass('skipped: on PostgreSQL and Redis the state answers with promises');
    return;
  }
  const u = await h.user('1');
  await subscribe(h, u.userId, 'basic');
  // The first call runs the plugin (and loads the key, the plan and the balance into memory).
  const first = await h.client.get('/api/echo_cached?msg=at-once', { 'X-API-Key': u.key });
  t.equal(first.status, 200);
  t.equal(first.body.cached, false);

  const answer = runCall(callOf(u.key, 'echo_cached', 'at-once', 'req_at_once_hit'), h.services);
  t.notOk(answer instanceof Promise, 'no promise: every stage answered at once');
  if (answer instanceof Promise) return;
  t.equal(answer.status, 200);
  const body = JSON.parse(answer.body);
  t.same(
    { cached: body.cached, deducted: body.deducted, remaining: body.remaining, data: body.data },
    { cached: true, deducted: 0, remaining: 1, data: first.body.data },
  );
  const headers = Object.fromEntries(
    answer.headers.flatMap((v, i, all) => (i % 2 === 0 ? [[v.toLowerCase(), all[i + 1]]] : [])),
  );
  t.match(headers, { 'x-plan': 'basic', 'x-quota-limit': '3', 'x-quota-remaining': '2' });
  t.same(await h.balance(u.userId), { balance: 1_000_000, held: 0 }, 'nothing charged');
  const log = await h.callLog(u.userId);
  t.same(
    log.map((r) => [r.request_id === 'req_at_once_hit', r.status, r.cached, r.free_reason, r.charged]),
    [
      [false, 200, 0, 'plan', 0],
      [true, 200, 1, 'plan_cache', 0],
    ],
  );
});

t.test('a call that must wait (a charge to commit) still answers through a promise, exactly', async (t) => {
  const u = await h.user('1');
  const answer = runCall(callOf(u.key, 'echo', 'charged', 'req_at_once_charged'), h.services);
  t.ok(answer instanceof Promise, 'the charge commits first');
  const { status, body } = await answer;
  t.equal(status, 200);
  t.match(JSON.parse(body), { success: true, deducted: 0.01, remaining: 0.99, cached: false });
  t.same(await h.balance(u.userId), { balance: 990_000, held: 0 });
  t.same(
    (await h.ledger(u.userId)).map((r) => [r.amount, r.kind, r.ref]),
    [
      [1_000_000, 'grant', `test-grant:${u.userId}`],
      [-10_000, 'charge', 'req_at_once_charged'],
    ],
  );
});
