// examples/upstreams/amap-weather.yaml through the whole gateway: key in the query, errors inside HTTP 200.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import nock from 'nock';
import t from 'tap';
import { createTestApp, type TestApp } from '../../helpers/create-test-app.js';

nock.disableNetConnect();
const AMAP = 'https://restapi.amap.com';
const PATH = '/v3/weather/weatherInfo';
const live = {
  province: '北京',
  city: '东城区',
  adcode: '110101',
  weather: '晴',
  temperature: '5',
  winddirection: '北',
  windpower: '≤3',
  humidity: '20',
  reporttime: '2026-11-27 08:00:00',
  temperature_float: '5.0',
  humidity_float: '20.0',
};
const query = { key: 'amap-secret-key', city: '110101', extensions: 'base', output: 'JSON' };

let h: TestApp;
t.before(async () => {
  process.env.AMAP_KEY = 'amap-secret-key';
  h = await createTestApp({
    operationsYaml: readFileSync('examples/upstreams/amap-weather.yaml', 'utf8'),
    pluginDirs: [resolve('plugins')],
  });
});
t.afterEach(async () => {
  nock.cleanAll();
  await h.assertReconciled();
});
t.teardown(async () => {
  delete process.env.AMAP_KEY;
  await h.close();
});

t.test('success: mapped data, charged the price, X-Upstream names amap', async (t) => {
  const u = await h.user('1');
  nock(AMAP)
    .get(PATH)
    .query(query)
    .reply(200, { status: '1', count: '1', info: 'OK', infocode: '10000', lives: [live] });
  const res = await h.client.get('/api/weather?city=110101', { 'X-API-Key': u.key });
  t.equal(res.status, 200);
  t.same(res.body.data, {
    province: '北京',
    city: '东城区',
    adcode: '110101',
    weather: '晴',
    temperature_c: 5,
    humidity: 20,
    wind_direction: '北',
    wind_power: '≤3',
    report_time: '2026-11-27 08:00:00',
    provider: 'amap',
  });
  t.equal(res.headers['x-upstream'], 'amap');
  t.equal(res.body.deducted, 0.002);
  t.same(await h.balance(u.userId), { balance: 998_000, held: 0 });
  t.notMatch(JSON.stringify(h.logs), /amap-secret-key/, 'the key is never logged');
});

t.test('an unknown district: 404 NOT_FOUND with the configured text, free', async (t) => {
  const u = await h.user('1');
  nock(AMAP)
    .get(PATH)
    .query({ ...query, city: '999999' })
    .reply(200, { status: '1', count: '0', info: 'OK', infocode: '10000', lives: [] });
  const res = await h.client.get('/api/weather?city=999999', { 'X-API-Key': u.key, 'Accept-Language': 'zh-CN' });
  t.equal(res.status, 404);
  t.same(res.body.error, { code: 'NOT_FOUND', message: '没有这个行政区编码的天气' });
  t.equal(res.body.deducted, 0);
  t.same(await h.balance(u.userId), { balance: 1_000_000, held: 0 });
});

t.test('a bad key (infocode 10001): 502, free, the upstream taken out of rotation', async (t) => {
  const u = await h.user('1');
  const emitted: unknown[] = [];
  const hooks = h.services.webhooks as { emit: typeof h.services.webhooks.emit };
  const emit = hooks.emit;
  hooks.emit = (event, data, userId) => {
    emitted.push([event, data, userId]);
    return emit(event, data, userId);
  };
  t.teardown(() => {
    hooks.emit = emit;
  });
  nock(AMAP)
    .get(PATH)
    .query({ ...query, city: '110102' })
    .reply(200, { status: '0', info: 'INVALID_USER_KEY', infocode: '10001' });
  const res = await h.client.get('/api/weather?city=110102', { 'X-API-Key': u.key });
  t.equal(res.status, 502);
  t.same(res.body.error, { code: 'UPSTREAM_FAILED', message: 'The upstream service is unavailable' });
  t.equal(res.headers['x-upstream'], 'amap');
  t.same(await h.balance(u.userId), { balance: 1_000_000, held: 0 });
  t.ok(h.logs.some((l) => l.message === 'upstream disabled' && l.upstream === 'amap'));
  // The operator's webhooks hear of it (user null: operator endpoints only).
  t.equal(emitted.length, 1);
  t.match(emitted[0], [
    'upstream.disabled',
    {
      operation: 'weather',
      upstream: 'amap',
      code: 'UPSTREAM_FAILED',
      seconds: 3600,
      reason: 'The upstream service is unavailable',
      until: /^\d{4}-\d\d-\d\dT/,
    },
    null,
  ]);
  // Out of rotation: the next call is refused at once, without asking AMap.
  const again = await h.client.get('/api/weather?city=110103', { 'X-API-Key': u.key });
  t.equal(again.status, 503);
  t.equal(again.body.error.code, 'UNAVAILABLE');
  t.notMatch(JSON.stringify(h.logs), /amap-secret-key/);
});
