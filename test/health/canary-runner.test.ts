// Canaries through the whole gateway (real operations.yaml, the jiexi and kuaid bundles in their isolates, nock for
// the upstreams): a good answer, a bot wall, a changed page shape naming the field, a timeout and a recovery on
// Xiaohongshu, Bilibili staying ok meanwhile, a bad kuaid credential; the status, the class, one alert per change,
// and no charge or customer-visible usage from canary calls.

import nock from 'nock';
import t from 'tap';
import { callsByDayAndOperation } from '../../core/billing/usage.js';
import { createCanaryRunner } from '../../core/health/canary-runner.js';
import { readStatuses } from '../../core/health/status-store.js';
import { CANARY_EMAIL } from '../../core/health/system-account.js';
import type { TestApp } from '../helpers/create-test-app.js';
import { slowReply } from '../plugins/jiexi/_helpers.js';
import { K100 } from '../plugins/kuaid/support.js';
import { biliGood, canaryApp, mails, webhookEvents, XHS_SAMPLE, XHS_VIDEO, xhsNote } from './support.js';

nock.disableNetConnect();
let h: TestApp;
t.before(async () => {
  process.env.KUAIDI100_CUSTOMER = K100.customer;
  process.env.KUAIDI100_KEY = K100.key;
  h = await canaryApp();
});
t.afterEach(async () => {
  nock.cleanAll();
  await h.assertReconciled();
});
t.teardown(async () => {
  delete process.env.KUAIDI100_CUSTOMER;
  delete process.env.KUAIDI100_KEY;
  await h.close();
});

const runner = () => createCanaryRunner(h.services);
const statusOf = async (operation: string, platform: string) =>
  (await readStatuses(h.services.store.db)).find((r) => r.operation === operation && r.platform === platform);

t.test('a good answer: ok, free, marked canary, invisible to customers and stats', async (t) => {
  xhsNote(200, XHS_VIDEO);
  const [r] = await runner().runNow('jiexi', 'xiaohongshu');
  t.same(r.verdict, { ok: true, class: null, field: null, detail: 'ok' });
  t.equal(r.state, 'ok');
  const row = await statusOf('jiexi', 'xiaohongshu');
  t.match(row, { state: 'ok', failures: 0, successes: 1, lastClass: null });
  t.ok(row!.lastSuccessAt);

  const db = h.services.store.db;
  const canary = await db.selectFrom('users').select('id').where('email', '=', CANARY_EMAIL).executeTakeFirstOrThrow();
  const log = await h.callLog(Number(canary.id));
  t.equal(log.length, 1);
  t.match(log[0], {
    operation: 'jiexi',
    status: 200,
    charged: 0,
    free_reason: 'canary',
    canary: 1,
    failure_class: null,
  });
  t.same(await h.ledger(Number(canary.id)), [], 'no ledger row: nothing was charged');
  t.same(await h.balance(Number(canary.id)), { balance: 0, held: 0 });
  t.same(await callsByDayAndOperation(db, 0), [], 'admin stats count no canary call');
  t.same(await webhookEvents(h), [], 'a first ok is no change worth an alert');
  const results = await db.selectFrom('canary_results').selectAll().execute();
  t.match(results, [{ operation: 'jiexi', platform: 'xiaohongshu', source: 'canary', ok: 1, request_id: r.requestId }]);
});

t.test('a bot wall (HTTP 461): degraded, risk_control, one alert', async (t) => {
  xhsNote(461, '<html>captcha</html>');
  const [r] = await runner().runNow('jiexi', 'xiaohongshu');
  t.match(r.verdict, { ok: false, class: 'risk_control', field: null, detail: /^UPSTREAM_FAILED: .*HTTP 461/ });
  t.match(await statusOf('jiexi', 'xiaohongshu'), { state: 'degraded', failures: 1, lastClass: 'risk_control' });
  const events = await webhookEvents(h);
  t.same(
    events.map((e) => e.event),
    ['operation.degraded'],
  );
  t.match(events[0].data, {
    operation: 'jiexi',
    platform: 'xiaohongshu',
    state: 'degraded',
    previous: 'ok',
    class: 'risk_control',
  });
  t.same(await mails(h), ['[Tollgate] jiexi/xiaohongshu 异常 / degraded (risk_control)']);
  const [logRow] = (await h.callLog()).filter((c) => c.request_id === r.requestId);
  t.match(logRow, { status: 502, error_code: 'UPSTREAM_FAILED', failure_class: 'risk_control', canary: 1, charged: 0 });
});

t.test('a changed page shape: down, shape_changed naming the missing field', async (t) => {
  xhsNote(200, XHS_VIDEO.replace('"noteDetailMap"', '"noteDetails"'));
  const [r] = await runner().runNow('jiexi', 'xiaohongshu');
  t.match(r.verdict, { ok: false, class: 'shape_changed', field: 'note.noteDetailMap' });
  t.match(await statusOf('jiexi', 'xiaohongshu'), {
    state: 'down',
    failures: 2,
    lastClass: 'shape_changed',
    lastField: 'note.noteDetailMap',
  });
  const events = await webhookEvents(h);
  t.same(
    events.map((e) => e.event),
    ['operation.degraded', 'operation.down'],
  );
  t.match(events[1].data, {
    platform: 'xiaohongshu',
    state: 'down',
    class: 'shape_changed',
    field: 'note.noteDetailMap',
  });
});

t.test('another platform is unaffected: Bilibili ok while Xiaohongshu is down', async (t) => {
  biliGood();
  const [r] = await runner().runNow('jiexi', 'bilibili');
  t.equal(r.verdict.ok, true, r.verdict.detail);
  t.match(await statusOf('jiexi', 'bilibili'), { state: 'ok' });
  t.match(await statusOf('jiexi', 'xiaohongshu'), { state: 'down' });
  t.equal((await webhookEvents(h)).length, 2, 'no alert for a first ok');
});

t.test('a timeout while down: class timeout, no new alert', async (t) => {
  xhsNote(200, slowReply(3000, 200, XHS_VIDEO));
  const [r] = await runner().runNow('jiexi', 'xiaohongshu');
  t.match(r.verdict, { ok: false, class: 'timeout' });
  t.match(await statusOf('jiexi', 'xiaohongshu'), { state: 'down', failures: 3, lastClass: 'timeout' });
  t.equal((await webhookEvents(h)).length, 2);
});

t.test('recovery: ok again, one operation.recovered', async (t) => {
  xhsNote(200, XHS_VIDEO);
  const [r] = await runner().runNow('jiexi', 'xiaohongshu');
  t.equal(r.verdict.ok, true);
  t.match(await statusOf('jiexi', 'xiaohongshu'), { state: 'ok', failures: 0 });
  const events = await webhookEvents(h);
  t.same(
    events.map((e) => e.event),
    ['operation.degraded', 'operation.down', 'operation.recovered'],
  );
  t.match(events[2].data, { state: 'ok', previous: 'down', class: null, field: null });
  t.equal((await mails(h)).length, 3);
});

t.test('a bad credential at the parcel provider: credential', async (t) => {
  nock('https://poll.kuaidi100.com')
    .post('/poll/query.do')
    .reply(200, '{"result":false,"returnCode":"601","message":"POLL:KEY已过期"}');
  const [r] = await runner().runNow('kuaid');
  t.match(r.verdict, { ok: false, class: 'credential', detail: /returnCode 601/ });
  t.match(await statusOf('kuaid', ''), { state: 'degraded', lastClass: 'credential' });
  const last = (await webhookEvents(h)).at(-1)!;
  t.match(last, { event: 'operation.degraded', data: { operation: 'kuaid', platform: null, class: 'credential' } });
});

t.test('live failures carry the same classes in the call log; a customer 404 is no upstream fault', async (t) => {
  const u = await h.user('1');
  const call = (url: string) => h.client.get(`/api/jiexi?url=${encodeURIComponent(url)}`, { 'X-API-Key': u.key });
  xhsNote(461, '<html>captcha</html>');
  t.equal((await call(XHS_SAMPLE)).status, 502);
  nock('https://xhslink.com')
    .get('/a/Gone0001')
    .reply(302, '', { Location: 'https://www.xiaohongshu.com/404?error_code=-510000' });
  nock('https://www.xiaohongshu.com').get('/404').query(true).reply(200, '<html>页面不见了</html>');
  t.equal((await call('http://xhslink.com/a/Gone0001')).status, 404);
  const rows = await h.callLog(u.userId);
  t.same(
    rows.map((r) => [r.status, r.error_code, r.failure_class, r.canary, r.charged]),
    [
      [502, 'UPSTREAM_FAILED', 'risk_control', 0, 0],
      [404, 'NOT_FOUND', null, 0, 0],
    ],
  );
  t.same(await h.balance(u.userId), { balance: 1_000_000, held: 0 });
});
