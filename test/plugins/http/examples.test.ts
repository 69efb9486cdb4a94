// The shipped examples/upstreams definitions through the whole gateway (one app with all of them), nock answering
// with the bodies their public docs show: success and each documented error kind, exact status, body and balance.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import nock from 'nock';
import t, { type Test } from 'tap';
import { parse, stringify } from 'yaml';
import { upstreamHealthOf } from '../../../core/state/upstream-health.js';
import { createTestApp, type TestApp } from '../../helpers/create-test-app.js';
import { rpc } from '../../mcp/support.js';

nock.disableNetConnect();
const ENV = {
  QWEATHER_KEY: 'qw-secret',
  KUAIDI100_KEY: 'kd-secret',
  KUAIDI100_CUSTOMER: 'CUSTOMER1',
  DEEPL_PRO_KEY: 'pro-secret',
  DEEPL_FREE_KEY: 'free-secret',
  AMAP_KEY: 'amap-secret',
};
const dir = resolve('examples/upstreams');
const operations = readdirSync(dir)
  .filter((f) => f.endsWith('.yaml'))
  .flatMap((f) => (parse(readFileSync(resolve(dir, f), 'utf8')) as { operations: unknown[] }).operations);

let h: TestApp;
let key: string;
let userId: number;
t.before(async () => {
  Object.assign(process.env, ENV);
  h = await createTestApp({ operationsYaml: stringify({ operations }), pluginDirs: [resolve('plugins')] });
});
t.beforeEach(async () => {
  ({ key, userId } = await h.user('1'));
});
t.afterEach(async () => {
  nock.cleanAll();
  await h.assertReconciled();
});
t.teardown(async () => {
  for (const k of Object.keys(ENV)) delete process.env[k];
  await h.close();
});

const get = (path: string, lang?: string) =>
  h.client.get(path, lang ? { 'X-API-Key': key, 'Accept-Language': lang } : { 'X-API-Key': key });
const post = (path: string, body: unknown) => h.client.post(path, body, { 'X-API-Key': key });
const balance = () => h.balance(userId).then((b) => b.balance);
const noSecrets = (t: Test) => t.notMatch(JSON.stringify(h.logs), /qw-secret|kd-secret|pro-secret|free-secret/);

t.test('QWeather now: key in a header, mapped, charged', async (t) => {
  nock('https://api.qweather.com', { reqheaders: { 'x-qw-api-key': 'qw-secret' } })
    .get('/v7/weather/now')
    .query({ location: '101010100', lang: 'zh', unit: 'm' })
    .reply(200, {
      code: '200',
      updateTime: '2026-11-27T09:02+08:00',
      now: {
        obsTime: '2026-11-27T08:56+08:00',
        temp: '3',
        feelsLike: '-1',
        icon: '100',
        text: '晴',
        wind360: '315',
        windDir: '西北风',
        windScale: '2',
        windSpeed: '8',
        humidity: '23',
        precip: '0.0',
        pressure: '1025',
        vis: '30',
        cloud: '0',
        dew: '-17',
      },
    });
  const res = await get('/api/weather_now?location=101010100');
  t.equal(res.status, 200);
  t.same(res.body.data, {
    observed_at: '2026-11-27T08:56+08:00',
    temperature_c: 3,
    feels_like_c: -1,
    text: '晴',
    wind_direction: '西北风',
    wind_scale: '2',
    humidity: 23,
    provider: 'qweather',
  });
  t.equal(await balance(), 998_000);
  noSecrets(t);
});

for (const [code, status, errCode, message] of [
  ['404', 404, 'NOT_FOUND', 'No current weather for this location'],
  ['204', 404, 'NOT_FOUND', 'No current weather for this location'],
  ['400', 400, 'INVALID_INPUT', 'The location is not valid'],
  ['429', 502, 'UPSTREAM_FAILED', 'The upstream service is busy'],
  ['402', 502, 'UPSTREAM_FAILED', 'The upstream quota is used up'],
] as const) {
  t.test(`QWeather now: code ${code} is ${status} ${errCode}, free`, async (t) => {
    nock('https://api.qweather.com').get('/v7/weather/now').query(true).reply(200, { code });
    const res = await get('/api/weather_now?location=101010101');
    t.equal(res.status, status);
    t.same(res.body.error, { code: errCode, message });
    t.equal(await balance(), 1_000_000);
    if (code === '402') t.ok(h.logs.some((l) => l.message === 'upstream disabled' && l.upstream === 'qweather'));
  });
}

t.test('QWeather city lookup: an array reshaped; nothing found is answered free', async (t) => {
  nock('https://geoapi.qweather.com')
    .get('/geo/v2/city/lookup')
    .query({ location: 'beijing' })
    .reply(200, {
      code: '200',
      location: [
        {
          name: '北京',
          id: '101010100',
          lat: '39.90499',
          lon: '116.40529',
          adm2: '北京',
          adm1: '北京市',
          country: '中国',
          tz: 'Asia/Shanghai',
          type: 'city',
          rank: '10',
        },
        {
          name: '海淀',
          id: '101010200',
          lat: '39.95607',
          lon: '116.31032',
          adm2: '北京',
          adm1: '北京市',
          country: '中国',
          tz: 'Asia/Shanghai',
          type: 'city',
          rank: '15',
        },
      ],
    });
  const res = await get('/api/city_lookup?q=beijing');
  t.equal(res.status, 200);
  t.same(res.body.data, {
    cities: [
      {
        id: '101010100',
        name: '北京',
        city: '北京',
        province: '北京市',
        country: '中国',
        lat: 39.90499,
        lon: 116.40529,
      },
      {
        id: '101010200',
        name: '海淀',
        city: '北京',
        province: '北京市',
        country: '中国',
        lat: 39.95607,
        lon: 116.31032,
      },
    ],
    provider: 'qweather',
  });
  t.equal(res.body.deducted, 0.001);
  // One match is still a list; none is an empty list, free.
  nock('https://geoapi.qweather.com')
    .get('/geo/v2/city/lookup')
    .query({ location: 'haidian', number: '1' })
    .reply(200, {
      code: '200',
      location: [
        {
          name: '海淀',
          id: '101010200',
          lat: '39.95607',
          lon: '116.31032',
          adm2: '北京',
          adm1: '北京市',
          country: '中国',
        },
      ],
    });
  const one = await get('/api/city_lookup?q=haidian&limit=1');
  t.equal(one.body.data.cities.length, 1);
  nock('https://geoapi.qweather.com')
    .get('/geo/v2/city/lookup')
    .query({ location: 'nowhere' })
    .reply(200, { code: '404' });
  const none = await get('/api/city_lookup?q=nowhere');
  t.equal(none.status, 200);
  t.same(none.body.data, { cities: [], provider: 'qweather' });
  t.equal(none.body.deducted, 0);
  t.equal(await balance(), 1_000_000 - 2_000);
});

t.test('Kuaidi100: a signed POST form; traces reshaped', async (t) => {
  let form: URLSearchParams | undefined;
  nock('https://poll.kuaidi100.com')
    .post('/poll/query.do', (body: string | Record<string, string>) => {
      form = new URLSearchParams(typeof body === 'string' ? body : (body as Record<string, string>));
      return true;
    })
    .reply(200, {
      message: 'ok',
      nu: 'YT1234567890123',
      ischeck: '1',
      condition: 'F00',
      com: 'yuantong',
      status: '200',
      state: '3',
      data: [
        { time: '2026-11-20 18:01:02', ftime: '2026-11-20 18:01:02', context: '已签收' },
        { time: '2026-11-20 08:00:00', ftime: '2026-11-20 08:00:00', context: '派件中' },
      ],
    });
  const res = await post('/api/parcel', { company: 'yuantong', number: 'YT1234567890123' });
  t.equal(res.status, 200);
  t.same(res.body.data, {
    company: 'yuantong',
    number: 'YT1234567890123',
    delivered: true,
    state: '3',
    traces: [
      { time: '2026-11-20 18:01:02', text: '已签收' },
      { time: '2026-11-20 08:00:00', text: '派件中' },
    ],
    provider: 'kuaidi100',
  });
  const param = '{"com":"yuantong","num":"YT1234567890123","phone":"","resultv2":"0"}';
  t.equal(form?.get('param'), param);
  t.equal(form?.get('customer'), 'CUSTOMER1');
  t.equal(form?.get('sign'), createHash('md5').update(`${param}kd-secret${'CUSTOMER1'}`).digest('hex').toUpperCase());
  t.equal(await balance(), 990_000);
  noSecrets(t);
});

for (const [returnCode, status, errCode] of [
  ['500', 404, 'NOT_FOUND'],
  ['400', 400, 'INVALID_INPUT'],
  ['502', 502, 'UPSTREAM_FAILED'],
  ['503', 502, 'UPSTREAM_FAILED'],
] as const) {
  t.test(`Kuaidi100: returnCode ${returnCode} is ${status} ${errCode}, free`, async (t) => {
    nock('https://poll.kuaidi100.com').post('/poll/query.do').reply(200, { result: false, returnCode, message: '...' });
    const res = await post('/api/parcel', { company: 'shunfeng', number: `SF${returnCode}0000001`, phone: '1234' });
    t.equal(res.status, status);
    t.equal(res.body.error.code, errCode);
    t.equal(await balance(), 1_000_000);
  });
}

t.test('DeepL: a JSON body; Pro refusing the key moves to Free; 456 on both is free', async (t) => {
  let sent: unknown;
  nock('https://api.deepl.com', { reqheaders: { authorization: 'DeepL-Auth-Key pro-secret' } })
    .post('/v2/translate')
    .reply(403, { message: 'Forbidden' });
  nock('https://api-free.deepl.com', {
    reqheaders: { authorization: 'DeepL-Auth-Key free-secret', 'content-type': 'application/json' },
  })
    .post('/v2/translate', (b: unknown) => {
      sent = b;
      return true;
    })
    .reply(200, { translations: [{ detected_source_language: 'EN', text: '你好，世界' }] });
  const res = await post('/api/translate', { text: 'Hello, world', target: 'ZH' });
  t.equal(res.status, 200);
  t.same(res.body.data, { text: '你好，世界', source_language: 'EN', provider: 'deepl' });
  t.equal(res.headers['x-upstream'], 'deepl_free');
  t.same(sent, { text: ['Hello, world'], target_lang: 'ZH' });
  // Pro is out of rotation now (bad key): Free alone answers, and its quota error is final.
  nock('https://api-free.deepl.com').post('/v2/translate').reply(456, { message: 'Quota exceeded' });
  const quota = await post('/api/translate', { text: 'Good night', target: 'DE' }).then((r) => r);
  t.equal(quota.status, 502);
  t.same(quota.body.error, { code: 'UPSTREAM_FAILED', message: 'The upstream quota is used up' });
  t.equal(await balance(), 995_000);
  noSecrets(t);
});

t.test('the example operations appear in the OpenAPI document and as MCP tools like built-in ones', async (t) => {
  const doc = await h.client.get('/openapi.json');
  t.equal(doc.status, 200);
  for (const code of ['weather', 'weather_now', 'city_lookup', 'parcel', 'translate']) {
    t.ok(JSON.stringify(doc.body.paths).includes(`/api/${code}`), code);
  }
  t.notMatch(
    JSON.stringify(doc.body),
    /qw-secret|kd-secret|pro-secret|free-secret|amap-secret|poll\.kuaidi100\.com|qweather\.com|deepl\.com/,
    'no upstream detail leaks',
  );
  const tools = await rpc(h, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { 'X-API-Key': key });
  const names = (tools.body.result.tools as Array<{ name: string }>).map((x) => x.name);
  for (const code of ['weather', 'weather_now', 'city_lookup', 'parcel', 'translate']) t.ok(names.includes(code), code);
  // A tool call is an /api call: the same answer, billed the same (DeepL back in rotation first).
  await upstreamHealthOf(h.services.state).markUp('translate', 'deepl_pro');
  nock('https://api-free.deepl.com')
    .post('/v2/translate')
    .reply(200, { translations: [{ detected_source_language: 'EN', text: 'Hallo' }] });
  nock('https://api.deepl.com')
    .post('/v2/translate')
    .reply(200, { translations: [{ detected_source_language: 'EN', text: 'Hallo' }] });
  const call = await rpc(
    h,
    {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'translate', arguments: { text: 'Hello', target: 'DE' } },
    },
    { 'X-API-Key': key },
  );
  t.match(JSON.stringify(call.body.result), /Hallo/);
  t.equal(await balance(), 995_000);
});
