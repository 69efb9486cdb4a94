import t from 'tap';
import nock from 'nock';
import { dataOf, fixture, runJiexi, slowReply } from './_helpers.js';
import { imageUrl } from '../../../plugins/jiexi/platforms/xiaohongshu.js';

nock.disableNetConnect();
t.afterEach(() => {
  nock.cleanAll();
});

const VIDEO_ID = '66b1c2d3e4f5a6b7c8d9e0f1';
const SHARE =
  '45 阿海发布了一篇小红书笔记，快来看吧！ 😆 C4QcUbe3ImNZyv3 😆 http://xhslink.com/a/zGL52ubtpJ20，复制本条信息，打开【小红书】App查看精彩内容！';
const NOTE_PATH = `/discovery/item/${VIDEO_ID}`;
const NOTE_QUERY = `app_platform=ios&app_version=8.80&share_from_user_hidden=true&xsec_source=app_share&type=video&xsec_token=CBxyz%3D&author_share=1&xhsshare=CopyLink`;

/** xhslink short link 302 → note page; the page answer is up to the test. */
function shareRedirect(location = `https://www.xiaohongshu.com${NOTE_PATH}?${NOTE_QUERY}`): void {
  nock('https://xhslink.com').get('/a/zGL52ubtpJ20').matchHeader('user-agent', /Windows NT/).reply(302, '', { Location: location });
}

function notePage(): nock.Interceptor {
  return nock('https://www.xiaohongshu.com').get(NOTE_PATH).query(true).matchHeader('user-agent', /Windows NT/);
}

t.test('video note: share text (full-width comma after URL) → redirect → h264 masterUrl', async (t) => {
  shareRedirect();
  nock('https://www.xiaohongshu.com', { badheaders: ['cookie'] })
    .get(NOTE_PATH)
    .query((q) => q.xsec_token === 'CBxyz=')
    .reply(200, fixture('xhs-video.html'));
  const data = dataOf((await runJiexi(SHARE)).outcome);
  t.same(data, {
    platform: 'xiaohongshu',
    id: VIDEO_ID,
    type: 'video',
    title: '傍晚的海边',
    cover: 'http://sns-webpic-qc.xhscdn.com/202608011200/7d0b1c/1040g2sg31videocover!nd_dft_wlteh_webp_3',
    url: 'http://sns-video-bd.xhscdn.com/stream/110/259/01e6abcd_259.mp4',
    images: [],
    author: { id: '5f1a2b3c4d5e6f7a8b9c0d1e', name: '阿海', avatar: 'https://sns-avatar-qc.xhscdn.com/avatar/1040g2jo31abc?imageView2/2/w/120/format/jpg' },
    duration: 37,
    music: null,
  });
});

t.test('video fallbacks: h265, then originVideoKey', async (t) => {
  const noH264 = fixture('xhs-video.html').replace(/"h264":\[\{[^\]]*\]\}\]/, '"h264":[]');
  t.not(noH264, fixture('xhs-video.html'), 'fixture edited');
  shareRedirect();
  notePage().reply(200, noH264);
  t.equal(dataOf((await runJiexi(SHARE)).outcome).url, 'http://sns-video-bd.xhscdn.com/stream/110/114/01e6abcd_114.mp4');
  const onlyKey = noH264.replace(/"h265":\[[^\]]*\]/, '"h265":[]');
  shareRedirect();
  notePage().reply(200, onlyKey);
  t.equal(dataOf((await runJiexi(SHARE)).outcome).url, 'https://sns-video-bd.xhscdn.com/pre_post/1040g2t031origkey');
});

t.test('image note via explore link: notes_pre_post rebuilt, others kept', async (t) => {
  nock('https://www.xiaohongshu.com').get('/explore/6701a2b3c4d5e6f708192a3b').query({ xsec_token: 'AB12', xsec_source: 'pc_feed' }).reply(200, fixture('xhs-images.html'));
  const data = dataOf((await runJiexi('https://www.xiaohongshu.com/explore/6701a2b3c4d5e6f708192a3b?xsec_token=AB12&xsec_source=pc_feed')).outcome);
  t.equal(data.type, 'images');
  t.equal(data.url, null);
  t.equal(data.title, '三天两晚大理攻略', 'empty title falls back to desc');
  t.same(data.images, [
    'https://ci.xiaohongshu.com/notes_pre_post/1040g3k031dali0001?imageView2/format/jpg',
    'https://ci.xiaohongshu.com/notes_pre_post/spectrum/1040g0k031dali0002?imageView2/format/jpg',
    'http://sns-webpic-qc.xhscdn.com/202608011200/1f2e3d/1040g2sg31dali0003!nd_dft_wlteh_webp_3',
  ]);
  t.equal(data.cover, data.images[0]);
});

t.test('xhslink.cn/o/ short links are accepted', async (t) => {
  nock('https://xhslink.cn').get('/o/9AbCdEfGh').reply(302, '', { Location: `https://www.xiaohongshu.com${NOTE_PATH}?${NOTE_QUERY}` });
  notePage().reply(200, fixture('xhs-video.html'));
  t.equal(dataOf((await runJiexi('https://xhslink.cn/o/9AbCdEfGh')).outcome).id, VIDEO_ID);
});

t.test('expired share link: currentNoteId "undefined" → NOT_FOUND with the reason', async (t) => {
  shareRedirect();
  notePage().reply(200, fixture('xhs-expired.html'));
  t.match((await runJiexi(SHARE)).outcome, { ok: false, code: 'NOT_FOUND', message: /expired/ });
});

t.test('login-only / empty note → NOT_FOUND (not publicly visible)', async (t) => {
  shareRedirect(`https://www.xiaohongshu.com/discovery/item/68a0b1c2d3e4f5a6b7c8d9e0?xsec_token=T1`);
  nock('https://www.xiaohongshu.com').get('/discovery/item/68a0b1c2d3e4f5a6b7c8d9e0').query(true).reply(200, fixture('xhs-login-only.html'));
  t.match((await runJiexi(SHARE)).outcome, { ok: false, code: 'NOT_FOUND', message: /not publicly visible/ });
});

t.test('deleted note: redirect to /404 → NOT_FOUND', async (t) => {
  shareRedirect('https://www.xiaohongshu.com/404?source=note&error_code=-510001');
  nock('https://www.xiaohongshu.com').get('/404').query(true).reply(200, '<html>页面不见了</html>');
  t.match((await runJiexi(SHARE)).outcome, { ok: false, code: 'NOT_FOUND' });
});

t.test('throttled: HTTP 418 and 412 → UPSTREAM_FAILED "throttled"', async (t) => {
  for (const status of [418, 412]) {
    shareRedirect();
    notePage().reply(status, '');
    t.match((await runJiexi(SHARE)).outcome, { ok: false, code: 'UPSTREAM_FAILED', message: new RegExp(`throttled \\(HTTP ${status}\\)`) });
  }
});

t.test('anti-bot page without __INITIAL_STATE__ → UPSTREAM_FAILED naming the step', async (t) => {
  shareRedirect();
  notePage().reply(200, fixture('xhs-antibot.html'));
  t.match((await runJiexi(SHARE)).outcome, { ok: false, code: 'UPSTREAM_FAILED', message: /note page.*__INITIAL_STATE__/ });
});

t.test('login/captcha wall redirect → UPSTREAM_FAILED', async (t) => {
  shareRedirect('https://www.xiaohongshu.com/website-login/captcha?redirectPath=x');
  nock('https://www.xiaohongshu.com').get('/website-login/captcha').query(true).reply(200, '<html>captcha</html>');
  t.match((await runJiexi(SHARE)).outcome, { ok: false, code: 'UPSTREAM_FAILED', message: /captcha/ });
});

t.test('empty body → UPSTREAM_FAILED', async (t) => {
  shareRedirect();
  notePage().reply(200, '');
  t.match((await runJiexi(SHARE)).outcome, { ok: false, code: 'UPSTREAM_FAILED', message: /empty body/ });
});

t.test('changed shape: no note.noteDetailMap → UPSTREAM_FAILED', async (t) => {
  shareRedirect();
  notePage().reply(200, fixture('xhs-changed.html'));
  t.match((await runJiexi(SHARE)).outcome, { ok: false, code: 'UPSTREAM_FAILED', message: /changed shape/ });
});

t.test('redirect to a host outside allow_hosts is refused by the host → UPSTREAM_FAILED', async (t) => {
  shareRedirect('https://evil.example.com/steal');
  const evil = nock('https://evil.example.com').get('/steal').reply(200, 'x');
  t.match((await runJiexi(SHARE)).outcome, { ok: false, code: 'UPSTREAM_FAILED', message: /fetch refused/ });
  t.notOk(evil.isDone(), 'the other host was never contacted');
});

t.test('slow upstream → UPSTREAM_TIMEOUT', async (t) => {
  shareRedirect();
  notePage().reply(slowReply(1000, 200, fixture('xhs-video.html')));
  t.match((await runJiexi(SHARE, { deadlineMs: 150 })).outcome, { ok: false, code: 'UPSTREAM_TIMEOUT' });
});

t.test('other paths on xhs hosts → UNSUPPORTED, nothing fetched', async (t) => {
  const { outcome, fetched } = await runJiexi('https://www.xiaohongshu.com/user/profile/5f1a2b3c4d5e6f7a8b9c0d1e');
  t.match(outcome, { ok: false, code: 'UNSUPPORTED' });
  t.same(fetched, []);
});

t.test('imageUrl rebuild rule', async (t) => {
  t.equal(imageUrl('http://a.xhscdn.com/x/notes_pre_post/ID1!nd_dft'), 'https://ci.xiaohongshu.com/notes_pre_post/ID1?imageView2/format/jpg');
  t.equal(imageUrl('http://a.xhscdn.com/x/ID2!nd_dft'), 'http://a.xhscdn.com/x/ID2!nd_dft');
});
