// The shipped plugins through the whole gateway: real operations.yaml, real isolates, nock for upstreams.
// Proves each bundle runs in the sandbox, errors map to the catalogue, and only successes are charged.

import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import nock from 'nock';
import t from 'tap';
import { createTestApp, type TestApp } from '../helpers/create-test-app.js';

nock.disableNetConnect();
const fixture = (name: string): string => readFileSync(resolve('test/plugins/jiexi/fixtures', name), 'utf8');
let h: TestApp;
t.before(async () => {
  delete process.env.KUAIDI100_KEY;
  delete process.env.KUAIDI100_CUSTOMER;
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

t.test('phone: 13800138000 is Beijing, China Mobile, charged 0.005', async (t) => {
  const u = await h.user('1');
  const res = await h.client.get('/api/phone?phone=13800138000', { 'X-API-Key': u.key });
  t.equal(res.status, 200);
  // 1380013 comes from a 6-digit libphonenumber entry: the province is kept, and 北京 is a municipality.
  t.match(res.body.data, {
    phone: '13800138000',
    province: '北京',
    city: '北京',
    carrier: '中国移动',
    segment: '138',
    is_virtual: false,
    precision: 'city',
    source: 'libphonenumber',
  });
  t.equal(res.body.deducted, 0.005);
  t.equal(res.body.remaining, 0.995);
});

for (const [input, reason] of [
  ['1380013800', /too short/],
  ['23800138000', /1/],
  ['1380013800a', /letter|digit/],
] as const) {
  t.test(`phone: malformed ${input} is 400 INVALID_INPUT, charged 0`, async (t) => {
    const u = await h.user('1');
    const res = await h.client.get(`/api/phone?phone=${input}`, { 'X-API-Key': u.key });
    t.equal(res.status, 400);
    t.equal(res.body.error.code, 'INVALID_INPUT');
    t.match(res.body.error.message, reason);
    t.equal(res.body.deducted, 0);
    t.same(await h.balance(u.userId), { balance: 1_000_000, held: 0 });
  });
}

t.test('phone: a malformed number is refused wholly in Chinese for a zh caller, in English otherwise', async (t) => {
  const u = await h.user('1');
  const ask = (lang: string) =>
    h.client.get('/api/phone?phone=1380013800', { 'X-API-Key': u.key, 'Accept-Language': lang });
  const zh = await ask('zh-CN');
  t.equal(zh.status, 400);
  t.equal(zh.body.error.code, 'INVALID_INPUT');
  t.equal(zh.body.error.message, 'phone 太短：10 位，大陆手机号为 11 位');
  t.notMatch(zh.body.error.message, /[A-Za-z]{6,}/, 'no English sentence mixed in');
  const en = await ask('en');
  t.equal(en.body.error.message, 'phone is too short: 10 digits, a mainland mobile number has 11');
  t.same(await h.balance(u.userId), { balance: 1_000_000, held: 0 });
});

t.test('jiexi: a Bilibili share text through the sandbox', async (t) => {
  const u = await h.user('1');
  nock('https://b23.tv')
    .get('/aB3dE5f')
    .reply(302, '', { Location: 'https://www.bilibili.com/video/BV1oM4y1G7LW?p=1' });
  nock('https://api.bilibili.com')
    .get('/x/web-interface/view')
    .query({ bvid: 'BV1oM4y1G7LW' })
    .reply(200, fixture('bili-view.json'));
  nock('https://api.bilibili.com').get('/x/player/playurl').query(true).reply(200, fixture('bili-playurl.json'));
  const text = '【【日常】在山里住了一周-哔哩哔哩】 https://b23.tv/aB3dE5f';
  const res = await h.client.get(`/api/jiexi?url=${encodeURIComponent(text)}`, { 'X-API-Key': u.key });
  t.equal(res.status, 200);
  t.match(res.body.data, {
    platform: 'bilibili',
    id: 'BV1oM4y1G7LW',
    type: 'video',
    title: '【日常】在山里住了一周',
    duration: 300,
  });
  t.match(res.body.data.url, /^https:\/\/upos-sz-mirrorcos\.bilivideo\.com\//);
  t.equal(res.body.deducted, 0.01);
});

t.test('jiexi: an unsupported site is 422 UNSUPPORTED and never fetched; charged 0', async (t) => {
  const u = await h.user('1');
  const trap = nock('https://example.com').get(/.*/).reply(200, 'should not be fetched');
  const res = await h.client.get(`/api/jiexi?url=${encodeURIComponent('https://example.com/video/1')}`, {
    'X-API-Key': u.key,
  });
  t.equal(res.status, 422);
  t.equal(res.body.error.code, 'UNSUPPORTED');
  t.match(res.body.error.message, /^Supported: Douyin, Kuaishou, Xiaohongshu, Bilibili\./);
  const zh = await h.client.get(`/api/jiexi?url=${encodeURIComponent('https://example.com/video/1')}`, {
    'X-API-Key': u.key,
    'Accept-Language': 'zh-CN',
  });
  t.equal(zh.body.error.message, '目前支持: 抖音、快手、小红书、B站', 'a Chinese caller gets the Chinese half only');
  t.notOk(trap.isDone(), 'no request went out');
  t.equal(res.body.deducted, 0);
});

t.test('jiexi: a bare short-link host is 400 INVALID_INPUT, never fetched, no ledger row', async (t) => {
  const u = await h.user('1');
  const trap = nock('https://v.kuaishou.com').get(/.*/).reply(302, '', { Location: 'https://m.kuaishou.com/' });
  const res = await h.client.get(`/api/jiexi?url=${encodeURIComponent('看这个 https://v.kuaishou.com/')}`, {
    'X-API-Key': u.key,
  });
  t.equal(res.status, 400);
  t.equal(res.body.error.code, 'INVALID_INPUT');
  t.match(res.body.error.message, /Kuaishou short link without its code/);
  t.equal(res.body.deducted, 0);
  t.notOk(trap.isDone(), 'no request went out');
  t.same(await h.ledger(u.userId), [
    { amount: 1_000_000, kind: 'grant', ref: `test-grant:${u.userId}`, balance_after: 1_000_000, operation: null },
  ]);
  t.same(await h.balance(u.userId), { balance: 1_000_000, held: 0 });
});

t.test('jiexi: a Bilibili upstream error is 502 / 404 and costs nothing', async (t) => {
  const u = await h.user('1');
  nock('https://api.bilibili.com')
    .get('/x/web-interface/view')
    .query(true)
    .reply(200, '{"code":-404,"message":"啥都木有","data":null}');
  const res = await h.client.get(
    `/api/jiexi?url=${encodeURIComponent('https://www.bilibili.com/video/BV1oM4y1G7LW')}`,
    { 'X-API-Key': u.key },
  );
  t.equal(res.status, 404);
  t.equal(res.body.error.code, 'NOT_FOUND');
  nock('https://api.bilibili.com').get('/x/web-interface/view').query(true).reply(500, 'oops');
  const res2 = await h.client.get(
    `/api/jiexi?url=${encodeURIComponent('https://www.bilibili.com/video/BV1oM4y1G7LW?x=1')}`,
    { 'X-API-Key': u.key },
  );
  t.equal(res2.status, 502);
  t.equal(res2.body.error.code, 'UPSTREAM_FAILED');
  t.same(await h.balance(u.userId), { balance: 1_000_000, held: 0 });
});

t.test('kuaid without provider credentials: 503 OPERATION_UNAVAILABLE before billing, no variable names', async (t) => {
  const u = await h.user('1');
  const res = await h.client.get('/api/kuaid?no=YT8962646785389', { 'X-API-Key': u.key });
  t.equal(res.status, 503);
  t.same(res.body, {
    success: false,
    error: {
      code: 'OPERATION_UNAVAILABLE',
      message: 'This operation is not available on this server yet. Nothing was charged.',
    },
    deducted: 0,
    remaining: 1,
    request_id: res.body.request_id,
  });
  t.notMatch(JSON.stringify(res.body), /KUAIDI|KDNIAO/);
  t.same(await h.ledger(u.userId), [
    { amount: 1_000_000, kind: 'grant', ref: `test-grant:${u.userId}`, balance_after: 1_000_000, operation: null },
  ]);
  t.same(await h.balance(u.userId), { balance: 1_000_000, held: 0 });
});

t.test('kuaid_detect: detection only, at its own price', async (t) => {
  const u = await h.user('1');
  const res = await h.client.get('/api/kuaid_detect?no=YT8962646785389', { 'X-API-Key': u.key });
  t.equal(res.status, 200);
  t.match(res.body.data, { no: 'YT8962646785389', com: 'yuantong' });
  t.equal(res.body.deducted, 0.001);
});

t.test('kuaid_detect: an unknown com is 400 INVALID_INPUT and uncharged (audit S4)', async (t) => {
  const u = await h.user('1');
  const res = await h.client.get('/api/kuaid_detect?no=000000&com=nosuchcourier', { 'X-API-Key': u.key });
  t.equal(res.status, 400);
  t.equal(res.body.error.code, 'INVALID_INPUT');
  t.match(res.body.error.message, /com "nosuchcourier" is not a courier code we know/);
  t.equal(res.body.deducted, 0);
  t.same(await h.balance(u.userId), { balance: 1_000_000, held: 0 });
});

t.test('douyin routes: /api/video/:id needs a numeric id; both routes need a key', async (t) => {
  const u = await h.user('1');
  const bad = await h.client.get('/api/video/abc', { 'X-API-Key': u.key });
  t.equal(bad.status, 400);
  t.equal(bad.body.error.code, 'INVALID_INPUT');
  t.equal(bad.body.deducted, 0);
  const noKey = await h.client.get('/api/parse?url=https://v.douyin.com/abc/');
  t.equal(noKey.status, 401);
  t.equal(noKey.body.error.code, 'MISSING_API_KEY');
});

t.test('/api/parse: a link of another site is refused wholly in Chinese for a zh caller, free', async (t) => {
  const u = await h.user('1');
  const url = encodeURIComponent('看看这个 https://v.kuaishou.com/13x0B9e');
  const ask = (lang: string) => h.client.get(`/api/parse?url=${url}`, { 'X-API-Key': u.key, 'Accept-Language': lang });
  const zh = await ask('zh-CN');
  t.equal(zh.status, 422);
  t.equal(zh.body.error.code, 'UNSUPPORTED');
  t.equal(zh.body.error.message, '只支持抖音链接，不支持 v.kuaishou.com 的链接');
  const en = await ask('en');
  t.equal(en.body.error.message, 'only Douyin links are supported, not v.kuaishou.com');
  t.equal(zh.body.deducted, 0);
  t.same(await h.balance(u.userId), { balance: 1_000_000, held: 0 });
});

t.test('kuaid_detect: a number of no known format is refused wholly in Chinese for a zh caller, free', async (t) => {
  const u = await h.user('1');
  const ask = (lang: string) =>
    h.client.get('/api/kuaid_detect?no=2123456789012345', { 'X-API-Key': u.key, 'Accept-Language': lang });
  const zh = await ask('zh-CN');
  t.equal(zh.status, 400);
  t.equal(zh.body.error.code, 'INVALID_INPUT');
  t.equal(
    zh.body.error.message,
    '快递单号 2123456789012345（16 位数字）不符合任何已知快递公司的单号格式；请传 com=（如 com=shunfeng）指定快递公司',
  );
  const en = await ask('en');
  t.equal(
    en.body.error.message,
    'tracking number 2123456789012345 (16 digits) matches no known courier format; pass com= (e.g. com=shunfeng) to name the courier',
  );
  t.same(await h.balance(u.userId), { balance: 1_000_000, held: 0 });
});
