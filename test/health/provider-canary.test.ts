// Canary status per provider of the plugin's own (kuaid's Kuaidi100 and Kdniao, operations.yaml `canary.providers`),
// through the whole gateway with nock for both: besides the failover probe, each provider is probed alone (host.pin).
// Kuaidi100's key has expired: its own status goes credential, then down, while Kdniao's stays ok and the failover
// probe keeps passing on Kdniao, so the operation is degraded, not down. Canary calls are free and no customer's.
import nock from 'nock';
import t from 'tap';
import { createCanaryRunner } from '../../core/health/canary-runner.js';
import { readStatuses } from '../../core/health/status-store.js';
import { buildReport } from '../../core/health/status-view.js';
import { CANARY_EMAIL } from '../../core/health/system-account.js';
import { admin } from '../console/support.js';
import type { TestApp } from '../helpers/create-test-app.js';
import { fixture, K100, KDN } from '../plugins/kuaid/support.js';
import { canaryApp } from './support.js';

nock.disableNetConnect();
let h: TestApp;
const saved = { ...process.env };
t.before(async () => {
  process.env.KUAIDI100_CUSTOMER = K100.customer;
  process.env.KUAIDI100_KEY = K100.key;
  process.env.KDNIAO_BUSINESS_ID = KDN.businessId;
  process.env.KDNIAO_API_KEY = KDN.apiKey;
  h = await canaryApp();
});
t.afterEach(async () => {
  nock.cleanAll();
  await h.assertReconciled();
});
t.teardown(async () => {
  await h.close();
  for (const k of ['KUAIDI100_CUSTOMER', 'KUAIDI100_KEY', 'KDNIAO_BUSINESS_ID', 'KDNIAO_API_KEY'])
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
});

const EXPIRED = '{"result":false,"returnCode":"601","message":"key已过期"}';
/** Kdniao's trail of the canary's signed SF parcel. */
const KDN_SF = JSON.stringify({
  EBusinessID: KDN.businessId,
  ShipperCode: 'SF',
  LogisticCode: 'SF1385628716739',
  Success: true,
  State: '3',
  Traces: [
    { AcceptTime: '2024-05-01 18:00:05', AcceptStation: '顺丰速运 已收取快件' },
    { AcceptTime: '2024-05-02 10:11:12', AcceptStation: '快件已签收，签收人：本人' },
  ],
});
const k100 = () => nock('https://poll.kuaidi100.com').post('/poll/query.do');
const kdn = () => nock('https://api.kdniao.com').post('/Ebusiness/EbusinessOrderHandle.aspx');
const statusOf = async (platform: string) =>
  (await readStatuses(h.services.store.db)).find((r) => r.operation === 'kuaid' && r.platform === platform);

t.test('a broken provider behind a working one: its status goes down, the operation is degraded', async (t) => {
  const runner = createCanaryRunner(h.services);
  // Per pass: the failover probe (Kuaidi100 fails, Kdniao answers), then Kuaidi100 alone, then Kdniao alone.
  const expired = k100().times(4).reply(200, EXPIRED);
  const working = kdn().times(4).reply(200, KDN_SF);
  const first = await runner.runNow('kuaid');
  t.same(
    first.map((r) => [r.platform, r.verdict.ok, r.verdict.class, r.state]),
    [
      ['', true, null, 'ok'],
      ['provider:kuaidi100', false, 'credential', 'degraded'],
      ['provider:kdniao', true, null, 'ok'],
    ],
  );
  const second = await runner.runNow('kuaid');
  t.same(
    second.map((r) => [r.platform, r.state]),
    [
      ['', 'ok'],
      ['provider:kuaidi100', 'down'],
      ['provider:kdniao', 'ok'],
    ],
  );
  t.ok(expired.isDone() && working.isDone(), 'each provider asked twice per pass');
  t.match(await statusOf('provider:kuaidi100'), {
    state: 'down',
    failures: 2,
    lastClass: 'credential',
    lastDetail:
      /^UPSTREAM_FAILED: parcel providers failed \(kuaidi100 failed\) \(kuaidi100: kuaidi100 returnCode 601 key已过期\)/,
  });
  t.match(await statusOf('provider:kdniao'), { state: 'ok', failures: 0 });
  t.match(await statusOf(''), { state: 'ok' });

  // Public (the app's first report, so read now): the operation is degraded, customers are still served.
  const pub = await h.client.get('/status.json');
  const kuaid = pub.body.operations.find((o: { code: string }) => o.code === 'kuaid');
  t.match(kuaid, { state: 'degraded', last_class: 'credential', platforms: [] });
  // Admins: every provider's own status, as for upstreams.
  const boss = await admin(h);
  const { subjects } = (await h.client.get('/console/api/admin/canaries', boss.headers)).body;
  t.same(
    subjects
      .filter((s: { operation: string }) => s.operation === 'kuaid')
      .map((s: { platform: string; state: string; last_class: string | null }) => [s.platform, s.state, s.last_class]),
    [
      ['', 'ok', null],
      ['provider:kdniao', 'ok', null],
      ['provider:kuaidi100', 'down', 'credential'],
    ],
  );
  // One provider probed on its own by its status key.
  k100().reply(200, fixture('k100-sf-signed.json'));
  const [fixed] = await runner.runNow('kuaid', 'provider:kuaidi100');
  t.match(fixed, { platform: 'provider:kuaidi100', state: 'ok', verdict: { ok: true } });
  // The page's report is cached for 15 s: build it from the rows as its next refresh will.
  const report = buildReport(
    h.services.registry.current.config,
    await readStatuses(h.services.store.db),
    [],
    Date.now(),
  );
  t.equal(report.operations.find((o) => o.code === 'kuaid')?.state, 'ok');

  // Seven canary calls: none charged, no ledger row, all marked canary; no customer's usage counts them.
  const db = h.services.store.db;
  const canary = await db.selectFrom('users').select('id').where('email', '=', CANARY_EMAIL).executeTakeFirstOrThrow();
  t.same(await h.ledger(Number(canary.id)), []);
  t.same(await h.balance(Number(canary.id)), { balance: 0, held: 0 });
  const log = await h.callLog(Number(canary.id));
  t.equal(log.length, 7);
  t.ok(log.every((row) => row.charged === 0 && row.canary === 1));
  const stats = (await h.client.get('/console/api/admin/stats', boss.headers)).body;
  t.same(stats.totals, { calls: 0, successes: 0, revenue: 0 });
});

t.test("a customer's call never pins, and credits the provider that answered", async (t) => {
  const u = await h.user('1');
  k100().reply(200, EXPIRED);
  kdn().reply(200, KDN_SF);
  const res = await h.client.get('/api/kuaid?no=SF1385628716739&phone=5678', { 'X-API-Key': u.key });
  t.equal(res.status, 200);
  t.equal(res.body.data.provider, 'kdniao', 'failed over from Kuaidi100 to Kdniao');
  t.equal(nock.pendingMocks().length, 0);
  t.same(await h.balance(u.userId), { balance: 995_000, held: 0 });
  t.ok(await h.services.liveSuccess.last('kuaid', 'provider:kdniao'), 'the provider that answered is credited');
  t.equal(await h.services.liveSuccess.last('kuaid', 'provider:kuaidi100'), null);
});
