// The 2026 link forms and fallbacks through the whole gateway (real operations.yaml, the bundle in its isolate):
// each is answered and charged once; a link that cannot name a post is 400 INVALID_INPUT, never fetched, free.

import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import nock from 'nock';
import t, { type Test } from 'tap';
import { createTestApp, type TestApp } from '../../helpers/create-test-app.js';
import { fixture as dyFixture, IMAGE_ID, play302, slidesinfo, VIDEO_ID } from '../platform-video/douyin-nock.js';
import { fixture } from './_helpers.js';

nock.disableNetConnect();
let unmatched = 0;
nock.emitter.on('no match', () => {
  unmatched++;
});
let h: TestApp;
t.before(async () => {
  h = await createTestApp({
    operationsYaml: readFileSync('operations.yaml', 'utf8'),
    pluginDirs: [resolve('plugins')],
  });
});
t.afterEach(async () => {
  nock.cleanAll();
  unmatched = 0;
  await h.assertReconciled();
});
t.teardown(() => h.close());

function call(key: string, url: string) {
  return h.client.get(`/api/jiexi?url=${encodeURIComponent(url)}`, { 'X-API-Key': key });
}

async function charged(t: Test, userId: number): Promise<void> {
  t.same(await h.balance(userId), { balance: 990_000, held: 0 }, 'charged 0.01 once');
}

t.test('Douyin web slides link: 200, images, charged', async (t) => {
  const u = await h.user('1');
  slidesinfo(IMAGE_ID, dyFixture('slidesinfo-empty.json'), dyFixture('slidesinfo-images.json'));
  const res = await call(u.key, `https://www.douyin.com/slides/${IMAGE_ID}`);
  t.equal(res.status, 200);
  t.match(res.body.data, { platform: 'douyin', id: IMAGE_ID, type: 'images', url: null });
  t.equal(res.body.deducted, 0.01);
  await charged(t, u.userId);
});

t.test('抖音精选 link: 200, the video, charged', async (t) => {
  const u = await h.user('1');
  slidesinfo(VIDEO_ID, dyFixture('slidesinfo-video.json'));
  play302();
  const res = await call(u.key, `https://jingxuan.douyin.com/m/video/${VIDEO_ID}?app=yumme&utm_source=copy_link`);
  t.equal(res.status, 200);
  t.match(res.body.data, { platform: 'douyin', id: VIDEO_ID, type: 'video' });
  await charged(t, u.userId);
});

t.test('快手极速版 gifshow page with several result objects: the linked photo, charged', async (t) => {
  const u = await h.user('1');
  nock('https://www.gifshow.com')
    .get('/fw/photo/3xnebula8m2k5qz')
    .query(true)
    .reply(200, fixture('kuaishou-gifshow-2026.html'));
  const res = await call(u.key, 'https://www.gifshow.com/fw/photo/3xnebula8m2k5qz?photoId=3xnebula8m2k5qz');
  t.equal(res.status, 200);
  t.match(res.body.data, { platform: 'kuaishou', id: '3xnebula8m2k5qz', author: { name: '晚霞收集者' } });
  await charged(t, u.userId);
});

t.test('Kuaishou short link → desktop shell → mobile page: 200, charged', async (t) => {
  const u = await h.user('1');
  nock('https://v.kuaishou.com')
    .get('/Sh3llAb')
    .reply(302, '', { Location: 'https://www.kuaishou.com/short-video/3xshell7q4w9ze?fid=0' });
  nock('https://www.kuaishou.com')
    .get('/short-video/3xshell7q4w9ze')
    .query(true)
    .reply(200, fixture('kuaishou-desktop-shell.html'));
  nock('https://m.kuaishou.com')
    .get('/fw/photo/3xshell7q4w9ze')
    .query(true)
    .reply(200, fixture('kuaishou-mobile-2026.html'));
  const res = await call(u.key, 'https://v.kuaishou.com/Sh3llAb');
  t.equal(res.status, 200);
  t.match(res.body.data, { platform: 'kuaishou', id: '3xshell7q4w9ze', author: { name: '山里人家' } });
  t.ok(nock.isDone(), 'desktop page, then the mobile page');
  await charged(t, u.userId);
});

t.test('XHS desktop /404?errorCode=-510001 → mobile page: 200, charged', async (t) => {
  const u = await h.user('1');
  const XHS = 'https://www.xiaohongshu.com';
  const id = '66b1c2d3000000001203e4f5';
  nock(XHS).get(`/explore/${id}`).query(true).reply(302, '', { Location: '/404?source=note&errorCode=-510001' });
  nock(XHS).get('/404').query(true).reply(200, '<html>你访问的页面不见了</html>');
  nock(XHS)
    .get(`/discovery/item/${id}`)
    .query({ xsec_token: 'G1' })
    .matchHeader('user-agent', /iPhone/)
    .reply(200, fixture('xhs-mobile-video.html'));
  const res = await call(u.key, `${XHS}/explore/${id}?xsec_token=G1`);
  t.equal(res.status, 200);
  t.match(res.body.data, {
    platform: 'xiaohongshu',
    id,
    type: 'video',
    url: 'http://sns-video-bd.xhscdn.com/stream/79/114/259/01e7clean_h265.mp4',
  });
  await charged(t, u.userId);
});

t.test('Bilibili festival page with ?bvid=: 200, charged', async (t) => {
  const u = await h.user('1');
  nock('https://api.bilibili.com')
    .get('/x/web-interface/view')
    .query({ bvid: 'BV1oM4y1G7LW' })
    .reply(200, fixture('bili-view.json'));
  nock('https://api.bilibili.com').get('/x/player/playurl').query(true).reply(200, fixture('bili-playurl.json'));
  const res = await call(u.key, 'https://www.bilibili.com/festival/2026bnj?bvid=BV1oM4y1G7LW');
  t.equal(res.status, 200);
  t.match(res.body.data, { platform: 'bilibili', id: 'BV1oM4y1G7LW' });
  await charged(t, u.userId);
});

// Every platform host a refused link could have reached: none may be asked.
const TRAP_HOSTS = [
  'https://v.douyin.com',
  'https://www.douyin.com',
  'https://www.iesdouyin.com',
  'https://v.kuaishou.com',
  'https://www.kuaishou.com',
  'https://m.kuaishou.com',
  'https://xhslink.com',
  'https://www.xiaohongshu.com',
  'https://b23.tv',
  'https://api.bilibili.com',
];

for (const link of [
  'https://v.kuaishou.com/',
  'https://v.douyin.com/',
  'http://xhslink.com/a/',
  'https://b23.tv',
  'https://www.douyin.com/user/MS4wLjABAAAAxyz',
  'https://www.kuaishou.com/profile/3xuser0001',
  'https://www.xiaohongshu.com/user/profile/5f1a2b3c4d5e6f7a8b9c0d1e',
  'https://space.bilibili.com/98765432',
]) {
  t.test(`${link}: 400 INVALID_INPUT, never fetched, no ledger row, balance unchanged`, async (t) => {
    const u = await h.user('1');
    const traps = TRAP_HOSTS.map((base) => nock(base).get(/.*/).reply(200, 'trap'));
    const res = await call(u.key, link);
    t.equal(res.status, 400);
    t.equal(res.body.success, false);
    t.equal(res.body.error.code, 'INVALID_INPUT');
    t.match(res.body.error.message, /^The link does not name a post: /);
    t.equal(res.body.deducted, 0);
    t.ok(
      traps.every((s) => !s.isDone()),
      'no interceptor was called',
    );
    t.equal(unmatched, 0, 'no request reached the network layer');
    t.same(await h.ledger(u.userId), [
      { amount: 1_000_000, kind: 'grant', ref: `test-grant:${u.userId}`, balance_after: 1_000_000, operation: null },
    ]);
    t.same(await h.balance(u.userId), { balance: 1_000_000, held: 0 });
  });
}
