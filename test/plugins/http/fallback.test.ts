// Plugin first, upstream for the rest (operations.yaml `fallback_when`), with the shipped example
// examples/upstreams/phone-location.yaml through the whole gateway: the offline phone plugin answers; only a
// number it cannot place asks the upstream, once per 7-digit prefix (cache_key); a failing upstream leaves the
// plugin's own answer, judged by charge_when. Exact status, data, balance and call-log rows.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import nock from 'nock';
import t from 'tap';
import { parseOperationsConfig } from '../../../core/config/operations-loader.js';
import { createTestApp, type TestApp } from '../../helpers/create-test-app.js';

nock.disableNetConnect();
const FILE = resolve('examples/upstreams/phone-location.yaml');
const YAML = readFileSync(FILE, 'utf8');
const JUHE = 'https://apis.juhe.cn';
const juheBody = (province: string, city: string, areacode: string, zip: string) => ({
  resultcode: '200',
  reason: 'Return Successd!',
  result: { province, city, areacode, zip, company: '联通', card: '' },
  error_code: 0,
});

let h: TestApp;
t.before(async () => {
  process.env.JUHE_PHONE_KEY = 'juhe-secret';
  h = await createTestApp({ operationsYaml: YAML, pluginDirs: [resolve('plugins')] });
});
t.afterEach(async () => {
  nock.cleanAll();
  await h.assertReconciled();
});
t.teardown(async () => {
  delete process.env.JUHE_PHONE_KEY;
  await h.close();
});

const rows = async (userId: number) => {
  await h.services.callLog.flush();
  return (await h.callLog(userId)).map((r) => [r.status, r.upstream, Number(r.upstream_cost), Number(r.charged)]);
};

t.test('a located number is answered offline: the upstream is never called, nothing costs upstream', async (t) => {
  const u = await h.user('1');
  const res = await h.client.get('/api/phone?phone=13800138000', { 'X-API-Key': u.key });
  t.equal(res.status, 200);
  t.same(res.body.data, {
    phone: '13800138000',
    province: '北京',
    city: '北京',
    carrier: '中国移动',
    card_type: '中国移动',
    is_virtual: false,
    segment: '138',
    area_code: '010',
    zip: '100000',
    precision: 'city',
    source: 'libphonenumber',
  });
  t.equal(res.headers['x-upstream'], undefined);
  t.equal((await h.balance(u.userId)).balance, 995_000);
  t.same(await rows(u.userId), [[200, null, 0, 5000]]);
});

t.test(
  'an unlocated number asks the upstream once per 7-digit prefix; the second number is from the cache',
  async (t) => {
    const u = await h.user('1');
    const scope = nock(JUHE)
      .get('/mobile/get')
      .query({ phone: '18612345678', key: 'juhe-secret' })
      .reply(200, juheBody('广东', '广州', '020', '510000'));
    const first = await h.client.get('/api/phone?phone=%2B86%20186-1234-5678', { 'X-API-Key': u.key });
    t.equal(first.status, 200);
    t.same(first.body.data, {
      phone: '18612345678',
      province: '广东',
      city: '广州',
      carrier: '中国联通',
      card_type: '中国联通',
      is_virtual: false,
      segment: '186',
      area_code: '020',
      zip: '510000',
      precision: 'city',
      source: 'juhe',
    });
    t.equal(first.headers['x-upstream'], 'juhe');
    t.ok(scope.isDone());
    // Same prefix 1861234, another number: no interceptor left, so a call would fail; it is not made.
    const second = await h.client.get('/api/phone?phone=18612340001', { 'X-API-Key': u.key });
    t.equal(second.status, 200);
    t.equal(second.body.data.phone, '18612340001');
    t.equal(second.body.data.city, '广州');
    t.equal(second.body.data.source, 'juhe');
    t.equal(second.headers['x-upstream'], undefined);
    t.equal((await h.balance(u.userId)).balance, 990_000);
    t.same(
      (await rows(u.userId)).sort((a, b) => String(a[1]).localeCompare(String(b[1]))),
      [
        [200, 'juhe', 4000, 5000],
        [200, null, 0, 5000],
      ],
    );
  },
);

t.test('an upstream failure sends the plugin answer (precision none, free by charge_when), not an error', async (t) => {
  const u = await h.user('1');
  const scope = nock(JUHE).get('/mobile/get').query(true).reply(500, 'busy');
  const res = await h.client.get('/api/phone?phone=17812345678', { 'X-API-Key': u.key });
  t.equal(res.status, 200);
  t.same(res.body.data, {
    phone: '17812345678',
    province: null,
    city: null,
    carrier: '中国移动',
    card_type: '中国移动',
    is_virtual: false,
    segment: '178',
    area_code: null,
    zip: null,
    precision: 'none',
    source: 'libphonenumber',
  });
  t.ok(scope.isDone());
  t.equal(res.headers['x-upstream'], 'juhe');
  t.equal((await h.balance(u.userId)).balance, 1_000_000);
  t.same(await rows(u.userId), [[200, 'juhe', 0, 0]]);
});

t.test('a NOT_FOUND from the upstream is kept per prefix too: the next number of it asks nobody', async (t) => {
  const u = await h.user('1');
  const scope = nock(JUHE)
    .get('/mobile/get')
    .query({ phone: '17812340001', key: 'juhe-secret' })
    .reply(200, { resultcode: '201', reason: '查询无结果', result: null, error_code: 201103 });
  const first = await h.client.get('/api/phone?phone=17812340001', { 'X-API-Key': u.key });
  t.equal(first.status, 200);
  t.equal(first.body.data.precision, 'none', "the plugin's own answer");
  t.equal(first.headers['x-upstream'], 'juhe');
  t.ok(scope.isDone());
  // Same prefix: no interceptor left, so a call would fail the test; the kept NOT_FOUND answers instead.
  const second = await h.client.get('/api/phone?phone=17812340002', { 'X-API-Key': u.key });
  t.equal(second.status, 200);
  t.same(second.body.data, { ...first.body.data, phone: '17812340002' });
  t.equal(second.headers['x-upstream'], undefined, 'nobody was asked');
  t.equal((await h.balance(u.userId)).balance, 1_000_000);
  t.same(
    (await rows(u.userId)).sort((a, b) => String(a[1]).localeCompare(String(b[1]))),
    [
      [200, 'juhe', 0, 0],
      [200, null, 0, 0],
    ],
  );
});

t.test('config: fallback_when is compiled at load and a bad one is named with its place', async (t) => {
  const bad = YAML.replace('fallback_when: precision != "city"', 'fallback_when: precision != (');
  t.throws(
    () => parseOperationsConfig(FILE, bad, { JUHE_PHONE_KEY: 'k' }),
    /\/operations\/0\/fallback_when.*JSONata error/,
  );
  const without = YAML.replace('    fallback_when: precision != "city"\n', '');
  t.throws(() => parseOperationsConfig(FILE, without, {}), /\/operations\/0\/upstreams.*fallback_when/);
  const noUpstreams = YAML.slice(0, YAML.indexOf('    upstreams:'));
  t.throws(() => parseOperationsConfig(FILE, noUpstreams, {}), /\/operations\/0\/fallback_when: needs a plugin/);
  const badKey = YAML.replace("cache_key: '$substring(", "cache_key: '$substring((");
  t.throws(() => parseOperationsConfig(FILE, badKey, {}), /\/operations\/0\/upstreams\/0\/cache_key.*JSONata error/);
  const nfWithoutKey = YAML.replace(/ {8}cache_key: .*\n/, '');
  t.throws(
    () => parseOperationsConfig(FILE, nfWithoutKey, {}),
    /\/operations\/0\/upstreams\/0\/not_found_ttl: needs cache_key/,
  );
  // Without the key the operation stays available: the plugin answers alone.
  t.same(parseOperationsConfig(FILE, YAML, {}).operations[0].availability, { available: true, missing: [] });
});
