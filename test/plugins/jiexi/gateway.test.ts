// jiexi through the whole gateway (real operations.yaml, the bundle in its isolate): what a customer sees and
// pays for the issue-12 cases. A bot wall is 502 and free, a gone note is 404 and free, a right answer is charged.

import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import nock from 'nock';
import t from 'tap';
import { createTestApp, type TestApp } from '../../helpers/create-test-app.js';
import { fixture } from './_helpers.js';

nock.disableNetConnect();
let h: TestApp;
t.before(async () => {
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

const XHS = 'https://www.xiaohongshu.com';
const VIDEO_ID = '66b1c2d3000000001203e4f5';
// Each test pastes its own short code: answers are cached per input (cache_ttl 3600).
const share = (code: string): string => `http://xhslink.com/a/${code}，复制本条信息，打开【小红书】App查看精彩内容！`;

function call(key: string, url: string) {
  return h.client.get(`/api/jiexi?url=${encodeURIComponent(url)}`, { 'X-API-Key': key });
}

t.test('XHS video: the original upload, charged once', async (t) => {
  const u = await h.user('1');
  nock('https://xhslink.com')
    .get('/a/zGL52ubtpJ20')
    .reply(302, '', { Location: `${XHS}/discovery/item/${VIDEO_ID}?xsec_token=T1` });
  nock(XHS).get(`/discovery/item/${VIDEO_ID}`).query(true).reply(200, fixture('xhs-video.html'));
  const res = await call(u.key, share('zGL52ubtpJ20'));
  t.equal(res.status, 200);
  t.match(res.body.data, {
    platform: 'xiaohongshu',
    id: VIDEO_ID,
    url: 'https://sns-video-bd.xhscdn.com/pre_post/1040g2t031origkey0001',
    watermark: false,
    watermark_url: null,
    note: null,
    image_items: [],
  });
  t.equal(res.body.deducted, 0.01);
  t.same(await h.balance(u.userId), { balance: 990_000, held: 0 });
});

t.test('XHS bot wall (/404/sec_… error_code=300031): 502 UPSTREAM_FAILED, retryable, costs nothing', async (t) => {
  const u = await h.user('1');
  nock('https://xhslink.com')
    .get('/a/Wa11Bot0')
    .reply(302, '', { Location: `${XHS}/404/sec_Ab12?error_code=300031` });
  nock(XHS).get('/404/sec_Ab12').query(true).reply(200, '<html>当前笔记暂时无法浏览</html>');
  const res = await call(u.key, share('Wa11Bot0'));
  t.equal(res.status, 502);
  t.equal(res.body.error.code, 'UPSTREAM_FAILED');
  t.match(res.body.error.message, /^Xiaohongshu note page: bot wall/);
  t.equal(res.body.deducted, 0);
  t.same(await h.balance(u.userId), { balance: 1_000_000, held: 0 });

  // Retryable: the failure is not cached, the same paste a moment later gets the note.
  nock('https://xhslink.com')
    .get('/a/Wa11Bot0')
    .reply(302, '', { Location: `${XHS}/discovery/item/${VIDEO_ID}?xsec_token=T1` });
  nock(XHS).get(`/discovery/item/${VIDEO_ID}`).query(true).reply(200, fixture('xhs-video.html'));
  const retry = await call(u.key, share('Wa11Bot0'));
  t.equal(retry.status, 200);
  t.equal(retry.body.data.id, VIDEO_ID);
  t.same(await h.balance(u.userId), { balance: 990_000, held: 0 });
});

t.test('XHS login-only after the discovery re-read and the mobile page: 404 NOT_FOUND, costs nothing', async (t) => {
  const u = await h.user('1');
  const id = '68a0b1c2000000001e00d9e0';
  nock(XHS).get(`/explore/${id}`).query(true).reply(200, fixture('xhs-login-only.html'));
  nock(XHS)
    .get(`/discovery/item/${id}`)
    .query({ xsec_token: 'T9' })
    .matchHeader('user-agent', /Windows NT/)
    .reply(200, fixture('xhs-login-only.html'));
  nock(XHS)
    .get(`/discovery/item/${id}`)
    .query({ xsec_token: 'T9' })
    .matchHeader('user-agent', /iPhone/)
    .reply(200, fixture('xhs-mobile-empty.html'));
  const res = await call(u.key, `${XHS}/explore/${id}?xsec_token=T9`);
  t.equal(res.status, 404);
  t.equal(res.body.error.code, 'NOT_FOUND');
  t.equal(res.body.deducted, 0);
  t.ok(nock.isDone(), 'all three reads happened');
});

t.test(
  'image_format: png converts XHS images; an unknown format is 400 before anything is fetched or charged',
  async (t) => {
    const u = await h.user('1');
    const id = '6701a2b3000000001d0192a3';
    nock(XHS).get(`/explore/${id}`).query(true).reply(200, fixture('xhs-images.html'));
    const link = `${XHS}/explore/${id}?xsec_token=F1`;
    const res = await h.client.get(`/api/jiexi?url=${encodeURIComponent(link)}&image_format=png`, {
      'X-API-Key': u.key,
    });
    t.equal(res.status, 200);
    t.equal(
      res.body.data.images[0],
      'https://ci.xiaohongshu.com/notes_pre_post/1040g3k031dali0001?imageView2/format/png',
    );
    const bad = await h.client.get(`/api/jiexi?url=${encodeURIComponent(link)}&image_format=gif`, {
      'X-API-Key': u.key,
    });
    t.equal(bad.status, 400);
    t.equal(bad.body.error.code, 'INVALID_INPUT');
    t.equal(bad.body.deducted, 0);
    t.same(await h.balance(u.userId), { balance: 990_000, held: 0 });
  },
);

t.test('Kuaishou captcha (result 2001): 502, costs nothing', async (t) => {
  const u = await h.user('1');
  nock('https://v.kuaishou.com')
    .get('/13x0B9e')
    .reply(302, '', { Location: 'https://v.m.chenzhongtech.com/fw/photo/3xburnkmj3auazc?photoId=3xburnkmj3auazc' });
  nock('https://v.m.chenzhongtech.com')
    .get('/fw/photo/3xburnkmj3auazc')
    .query(true)
    .reply(200, fixture('kuaishou-captcha.html'));
  const res = await call(u.key, 'https://v.kuaishou.com/13x0B9e');
  t.equal(res.status, 502);
  t.equal(res.body.error.code, 'UPSTREAM_FAILED');
  t.same(await h.balance(u.userId), { balance: 1_000_000, held: 0 });
});

t.test('a changed upstream answer is 502 UPSTREAM_FAILED wholly in the caller language, costs nothing', async (t) => {
  const u = await h.user('1');
  // Both asks reach the upstream: a failure is never cached.
  nock('https://b23.tv')
    .get('/cHanG3d')
    .times(2)
    .reply(302, '', { Location: 'https://www.bilibili.com/video/BV1oM4y1G7LW' });
  nock('https://api.bilibili.com')
    .get('/x/web-interface/view')
    .query({ bvid: 'BV1oM4y1G7LW' })
    .times(2)
    .reply(200, '<html>risk page</html>');
  const ask = (lang: string) =>
    h.client.get(`/api/jiexi?url=${encodeURIComponent('https://b23.tv/cHanG3d')}`, {
      'X-API-Key': u.key,
      'Accept-Language': lang,
    });
  const en = await ask('en');
  t.equal(en.status, 502);
  t.equal(en.body.error.code, 'UPSTREAM_FAILED');
  t.equal(en.body.error.message, 'Bilibili view API: not the expected JSON (changed shape).');
  t.equal(en.body.deducted, 0);
  const zh = await ask('zh-CN');
  t.equal(zh.status, 502);
  t.equal(zh.body.error.code, 'UPSTREAM_FAILED');
  t.equal(zh.body.error.message, 'B站视频信息接口返回的数据格式已变化');
  t.equal(zh.body.deducted, 0);
  t.same(await h.balance(u.userId), { balance: 1_000_000, held: 0 });
});
