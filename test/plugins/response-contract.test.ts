// Every shipped operation's real output, through the whole gateway (real operations.yaml, plugins in their
// isolates, nock fixtures for upstreams), checked with Ajv against the `response:` fields it declares in
// operations.yaml: every declared field present unless optional, the right type, nothing undeclared. The same
// schema is what /openapi.json publishes as the operation's data, so a plugin that changes its output without
// its declaration fails here.

import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import nock from 'nock';
import t, { type Test } from 'tap';
import { objectSchema } from '../../core/config/response-fields.js';
import { createTestApp, type TestApp } from '../helpers/create-test-app.js';
import { K100, fixture as kuaidFixture } from './kuaid/support.js';
import {
  fixture as douyinFixture,
  IMAGE_ID,
  play302,
  redirects,
  shortLink,
  slidesinfo,
  VIDEO_ID,
} from './platform-video/douyin-nock.js';

nock.disableNetConnect();
const jiexiFixture = (name: string): string => readFileSync(join('test/plugins/jiexi/fixtures', name), 'utf8');

let h: TestApp;
const validators = new Map<string, ValidateFunction>();
/** Operation codes checked with at least one real answer. */
const covered = new Set<string>();

t.before(async () => {
  process.env.KUAIDI100_CUSTOMER = K100.customer;
  process.env.KUAIDI100_KEY = K100.key;
  delete process.env.KDNIAO_BUSINESS_ID;
  delete process.env.KDNIAO_API_KEY;
  h = await createTestApp({
    operationsYaml: readFileSync('operations.yaml', 'utf8'),
    pluginDirs: [resolve('plugins')],
  });
  const ajv = new Ajv({ allErrors: true, strict: true });
  // The plugins' times: ISO 8601 with a zone (Z or +08:00).
  ajv.addFormat('date-time', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?(?:Z|[+-]\d{2}:\d{2})$/);
  for (const op of h.services.registry.current.list()) {
    if (op.response) validators.set(op.code, ajv.compile(objectSchema(op.response, null)));
  }
});
t.afterEach(async () => {
  t.ok(nock.isDone(), 'every upstream fixture was used');
  nock.cleanAll();
  await h.assertReconciled();
});
t.teardown(() => {
  delete process.env.KUAIDI100_CUSTOMER;
  delete process.env.KUAIDI100_KEY;
  return h.close();
});

async function check(
  t: Test,
  code: string,
  path: string,
  expect: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  const u = await h.user('1');
  const res = await h.client.get(path, { 'X-API-Key': u.key });
  t.equal(res.status, 200, `${path}: ${JSON.stringify(res.body).slice(0, 300)}`);
  t.same(
    Object.keys(res.body).sort(),
    ['cached', 'data', 'deducted', 'remaining', 'request_id', 'success'],
    'the envelope',
  );
  const validate = validators.get(code);
  if (!validate) throw new Error(`${code} declares no response`);
  t.ok(validate(res.body.data), `${code} data matches its response: ${JSON.stringify(validate.errors)}`);
  t.match(res.body.data, expect);
  covered.add(code);
  return res.body.data as Record<string, unknown>;
}

t.test('phone: city, province-only and no-location answers', async (t) => {
  await check(t, 'phone', '/api/phone?phone=13800138000', { precision: 'city', carrier: '中国移动' });
  await check(t, 'phone', '/api/phone?phone=%2B86%20134-0000-0000');
  await check(t, 'phone', '/api/phone?phone=13012345678');
});

t.test('jiexi: Bilibili video', async (t) => {
  nock('https://b23.tv')
    .get('/aB3dE5f')
    .reply(302, '', { Location: 'https://www.bilibili.com/video/BV1oM4y1G7LW?p=1' });
  nock('https://api.bilibili.com')
    .get('/x/web-interface/view')
    .query({ bvid: 'BV1oM4y1G7LW' })
    .reply(200, jiexiFixture('bili-view.json'));
  nock('https://api.bilibili.com').get('/x/player/playurl').query(true).reply(200, jiexiFixture('bili-playurl.json'));
  const text = encodeURIComponent('【【日常】在山里住了一周-哔哩哔哩】 https://b23.tv/aB3dE5f');
  await check(t, 'jiexi', `/api/jiexi?url=${text}`, { platform: 'bilibili', type: 'video' });
});

t.test('jiexi: Xiaohongshu video, image note and Live Photo note', async (t) => {
  const XHS = 'https://www.xiaohongshu.com';
  nock('https://xhslink.com')
    .get('/a/contract1')
    .reply(302, '', { Location: `${XHS}/discovery/item/66b1c2d3000000001203e4f5?xsec_token=T1` });
  nock(XHS).get('/discovery/item/66b1c2d3000000001203e4f5').query(true).reply(200, jiexiFixture('xhs-video.html'));
  await check(t, 'jiexi', `/api/jiexi?url=${encodeURIComponent('http://xhslink.com/a/contract1')}`, {
    platform: 'xiaohongshu',
    type: 'video',
  });
  nock(XHS)
    .get(/^\/explore\//)
    .query(true)
    .reply(200, jiexiFixture('xhs-images.html'));
  await check(
    t,
    'jiexi',
    `/api/jiexi?url=${encodeURIComponent(`${XHS}/explore/6680aa00000000001e00abcd?xsec_token=AB12`)}`,
    { type: 'images' },
  );
  nock(XHS)
    .get(/^\/explore\//)
    .query(true)
    .reply(200, jiexiFixture('xhs-livephoto.html'));
  const live = await check(
    t,
    'jiexi',
    `/api/jiexi?url=${encodeURIComponent(`${XHS}/explore/6680aa00000000001e00beef?xsec_token=LV1`)}`,
    { type: 'images' },
  );
  t.ok(
    (live.image_items as Array<{ live_photo_url: string | null }>).some((i) => i.live_photo_url !== null),
    'a Live Photo clip',
  );
});

t.test('jiexi: Kuaishou video', async (t) => {
  const page = '/fw/photo/3xburnkmj3auazc';
  nock('https://v.kuaishou.com')
    .get('/13x0B9e')
    .reply(302, '', { Location: `https://v.m.chenzhongtech.com${page}?photoId=3xburnkmj3auazc` });
  nock('https://v.m.chenzhongtech.com')
    .get(page)
    .query(true)
    .reply(200, jiexiFixture('kuaishou-video.html'), { 'Content-Type': 'text/html' });
  await check(t, 'jiexi', `/api/jiexi?url=${encodeURIComponent('https://v.kuaishou.com/13x0B9e 海边日落')}`, {
    platform: 'kuaishou',
  });
});

t.test('kuaid: a signed SF trail and a moving ZTO trail', async (t) => {
  nock('https://poll.kuaidi100.com').post('/poll/query.do').reply(200, kuaidFixture('k100-sf-signed.json'));
  await check(t, 'kuaid', '/api/kuaid?no=SF1385628716739&phone=5678', {
    state: 'SIGNED',
    finished: true,
    provider: 'kuaidi100',
  });
  nock('https://poll.kuaidi100.com').post('/poll/query.do').reply(200, kuaidFixture('k100-zto-transit.json'));
  await check(t, 'kuaid', '/api/kuaid?no=73610555582883&phone=5678', { com: 'zhongtong', state: 'IN_TRANSIT' });
});

t.test('kuaid_detect: clear and ambiguous numbers', async (t) => {
  await check(t, 'kuaid_detect', '/api/kuaid_detect?no=SF1385628716739', { com: 'shunfeng' });
  await check(t, 'kuaid_detect', '/api/kuaid_detect?no=434080499334709');
  await check(t, 'kuaid_detect', '/api/kuaid_detect?no=123456789012');
});

t.test('douyin: a video by short link and an image post by id', async (t) => {
  shortLink(redirects.short_link_video);
  slidesinfo(VIDEO_ID, douyinFixture('slidesinfo-video.json'));
  play302();
  await check(t, 'douyin', `/api/douyin?url=${encodeURIComponent('https://v.douyin.com/7PK95qKezLc/')}`, {
    id: VIDEO_ID,
    type: 'video',
  });
  slidesinfo(IMAGE_ID, douyinFixture('slidesinfo-empty.json'), douyinFixture('slidesinfo-images.json'));
  await check(t, 'douyin', `/api/video/${IMAGE_ID}`, { id: IMAGE_ID, type: 'images' });
});

t.test('every operation that declares a response was checked against a real answer', async (t) => {
  t.same([...covered].sort(), [...validators.keys()].sort());
  t.same(
    [...validators.keys()].sort(),
    ['douyin', 'jiexi', 'kuaid', 'kuaid_detect', 'phone'],
    'all five shipped operations declare one',
  );
});

t.test('the check can fail: an undeclared, a missing or a mistyped field is refused', async (t) => {
  const validate = validators.get('phone') as ValidateFunction;
  const example = h.services.registry.current.get('phone')?.responseExample as Record<string, unknown>;
  t.ok(validate(example), 'the declared example passes');
  t.notOk(validate({ ...example, extra: 1 }), 'undeclared field');
  const { zip: _zip, ...missing } = example;
  t.notOk(validate(missing), 'missing field');
  t.notOk(validate({ ...example, is_virtual: 'no' }), 'wrong type');
  t.notOk(validate({ ...example, precision: 'street' }), 'value outside the enum');
});
