// kuaid through the whole gateway (real operations.yaml, real isolates, nock for Kuaidi100): a trail costs
// 0.005 TOKEN and writes one ledger row; "no record yet", a courier the provider does not carry and an
// unknown com cost nothing and write no ledger row.

import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import nock from 'nock';
import t from 'tap';
import { createTestApp, type TestApp } from '../../helpers/create-test-app.js';
import { fixture, K100 } from './support.js';

nock.disableNetConnect();
let h: TestApp;
t.before(async () => {
  process.env.KUAIDI100_CUSTOMER = K100.customer;
  process.env.KUAIDI100_KEY = K100.key;
  delete process.env.KDNIAO_BUSINESS_ID;
  delete process.env.KDNIAO_API_KEY;
  h = await createTestApp({
    operationsYaml: readFileSync('operations.yaml', 'utf8'),
    pluginDirs: [resolve('plugins')],
  });
});
t.afterEach(async () => {
  nock.cleanAll();
  await h.assertReconciled();
});
t.teardown(() => h.close());

const k100 = () => nock('https://poll.kuaidi100.com').post('/poll/query.do');

t.test('a trail is charged 0.005 with one ledger row', async (t) => {
  const u = await h.user('1');
  k100().reply(200, fixture('k100-zto-transit.json'));
  const res = await h.client.get('/api/kuaid?no=73610555582883&phone=5678', { 'X-API-Key': u.key });
  t.equal(res.status, 200);
  t.match(res.body.data, { no: '73610555582883', com: 'zhongtong', state: 'IN_TRANSIT', provider: 'kuaidi100' });
  t.equal(res.body.deducted, 0.005);
  t.equal(res.body.remaining, 0.995);
  t.match(await h.ledger(u.userId), [
    { kind: 'grant' },
    { kind: 'charge', amount: -5000, balance_after: 995_000, operation: 'kuaid' },
  ]);
});

t.test('no record yet: 404 NOT_FOUND, nothing charged, no ledger row', async (t) => {
  const u = await h.user('1');
  k100().reply(200, fixture('k100-error-500.json'));
  const res = await h.client.get('/api/kuaid?no=YT8962646785389', { 'X-API-Key': u.key });
  t.equal(res.status, 404);
  t.equal(res.body.error.code, 'NOT_FOUND');
  t.match(res.body.error.message, /^No tracking record yet for YT8962646785389 at YTO Express.*not charged/);
  t.equal(res.body.deducted, 0);
  t.equal(res.body.remaining, 1);
  t.same(await h.balance(u.userId), { balance: 1_000_000, held: 0 });
  t.equal((await h.ledger(u.userId)).length, 1, 'only the grant');
});

t.test('a courier the provider does not carry: 422 UNSUPPORTED, free', async (t) => {
  const u = await h.user('1');
  k100().reply(200, '{"result":false,"returnCode":"400","message":"不支持此快递公司"}');
  const res = await h.client.get('/api/kuaid?no=YT8962646785389&com=nosuchcourier', { 'X-API-Key': u.key });
  t.equal(res.status, 422);
  t.equal(res.body.error.code, 'UNSUPPORTED');
  t.equal(res.body.deducted, 0);
  t.same(await h.balance(u.userId), { balance: 1_000_000, held: 0 });
});

t.test('a phone the courier rejects: 400 in Chinese for a zh caller, in English otherwise, free', async (t) => {
  const u = await h.user('1');
  const ask = (lang: string) =>
    h.client.get('/api/kuaid?no=SF1385628716739&phone=0000', { 'X-API-Key': u.key, 'Accept-Language': lang });
  k100().reply(200, fixture('k100-error-408.json'));
  const zh = await ask('zh-CN');
  t.equal(zh.status, 400);
  t.equal(zh.body.error.code, 'INVALID_INPUT');
  t.equal(zh.body.error.message, '手机号与这件顺丰速运快件不符：请传寄件人或收件人的手机号或手机号后 4 位');
  t.equal(zh.body.deducted, 0);
  k100().reply(200, fixture('k100-error-408.json'));
  const en = await ask('en');
  // Kuaidi100's own (Chinese) words are the operator's detail: the English caller gets the whole English sentence.
  t.equal(
    en.body.error.message,
    "the phone number does not match this SF Express parcel: pass the sender's or receiver's phone or its last 4 digits",
  );
  t.same(await h.balance(u.userId), { balance: 1_000_000, held: 0 });
  t.equal((await h.ledger(u.userId)).length, 1, 'only the grant');
});

t.test('kuaid_detect: candidates with confidences at 0.001; an unknown com is 400 and free', async (t) => {
  const u = await h.user('1');
  const res = await h.client.get('/api/kuaid_detect?no=1000745320654', { 'X-API-Key': u.key });
  t.equal(res.status, 200);
  t.same(
    res.body.data.candidates.map((c: { com: string; confidence: number }) => [c.com, c.confidence]),
    [
      ['ems', 0.55],
      ['yunda', 0.45],
    ],
  );
  t.equal(res.body.data.ambiguous, true);
  t.equal(res.body.deducted, 0.001);
  const bad = await h.client.get('/api/kuaid_detect?no=000000&com=nosuchcourier', { 'X-API-Key': u.key });
  t.equal(bad.status, 400);
  t.equal(bad.body.error.code, 'INVALID_INPUT');
  t.equal(bad.body.deducted, 0);
  t.same(await h.balance(u.userId), { balance: 999_000, held: 0 });
});
