import nock from 'nock';
import t from 'tap';
import { findPhotoState } from '../../../plugins/jiexi/platforms/ks-state.js';
import { dataOf, fixture, runJiexi, slowReply } from './_helpers.js';

nock.disableNetConnect();
t.afterEach(() => {
  nock.cleanAll();
});

const SHARE = 'https://v.kuaishou.com/13x0B9e 海边日落 "#旅行 点击链接，打开【快手】直接观看！';
const PAGE_PATH = '/fw/photo/3xburnkmj3auazc';
const LOCATION = `https://v.m.chenzhongtech.com${PAGE_PATH}?fid=0&cc=share_copylink&shareToken=X8abc&photoId=3xburnkmj3auazc`;

function shortLink(location = LOCATION): nock.Scope {
  return nock('https://v.kuaishou.com')
    .get('/13x0B9e')
    .matchHeader('user-agent', /iPhone/)
    .matchHeader('referer', 'https://v.kuaishou.com/')
    .matchHeader('accept', /text\/html/)
    .reply(302, '', {
      Location: location,
      'Set-Cookie': [
        'did=web_4f2a; path=/; domain=.kuaishou.com; expires=Wed, 21 Oct 2026 07:28:00 GMT',
        'didv=1751350000000; path=/',
      ],
    });
}

function page(body: string, status = 200, path = PAGE_PATH): nock.Scope {
  return nock('https://v.m.chenzhongtech.com')
    .get(path)
    .query(true)
    .reply(status, body, { 'Content-Type': 'text/html' });
}

t.test('video post: short link → 302 → H5 page, cookies forwarded, mainMvUrls as is', async (t) => {
  shortLink();
  nock('https://v.m.chenzhongtech.com')
    .get(PAGE_PATH)
    .query({ fid: '0', cc: 'share_copylink', shareToken: 'X8abc', photoId: '3xburnkmj3auazc' })
    .matchHeader('cookie', 'did=web_4f2a; didv=1751350000000')
    .matchHeader('user-agent', /iPhone/)
    .reply(200, fixture('kuaishou-video.html'));
  const { outcome } = await runJiexi(SHARE);
  const data = dataOf(outcome);
  t.same(data, {
    platform: 'kuaishou',
    id: '3xburnkmj3auazc',
    type: 'video',
    title: '海边日落 #旅行 #vlog',
    cover: 'https://p2.a.yximgs.com/upic/2026/07/01/12/BMjAyNjA3_cover.jpg?tag=1',
    url: 'https://v1.kwaicdn.com/ksc2/Xn0AbC_720p.mp4?pkey=AAW&tag=1-1719&clientCacheKey=3xburnkmj3auazc_b.mp4',
    images: [],
    author: {
      id: '2233445566',
      name: '小明的旅行日记',
      avatar: 'https://p2.a.yximgs.com/uhead/AB/2026/07/01/12/BMjAyNjA3.jpg',
    },
    duration: 15,
    music: { title: '小明的旅行日记创作的原声', author: null, url: null },
    image_items: [],
    watermark: false,
    watermark_url: null,
    note: null,
  });
  t.ok(nock.isDone());
});

t.test('image post (atlas): images from ext_params.atlas.cdn[0] + list[i], no video url', async (t) => {
  shortLink('https://v.m.chenzhongtech.com/fw/photo/3xatlas9k2mq7wz?photoId=3xatlas9k2mq7wz');
  page(fixture('kuaishou-images.html'), 200, '/fw/photo/3xatlas9k2mq7wz');
  const data = dataOf((await runJiexi(SHARE)).outcome);
  t.equal(data.type, 'images');
  t.equal(data.url, null);
  t.same(data.images, [
    'https://p5.a.yximgs.com/ufile/atlas/NTIwNj_0.jpg',
    'https://p5.a.yximgs.com/ufile/atlas/NTIwNj_1.jpg',
    'https://p5.a.yximgs.com/ufile/atlas/NTIwNj_2.jpg',
  ]);
  t.equal(data.author.id, null, 'no userId in the page → null, not invented');
});

t.test('www.kuaishou.com/f/ link: follows /short-video/ hop, rewrites /fw/long-video/ to /fw/photo/', async (t) => {
  nock('https://www.kuaishou.com')
    .get('/f/X7kQp2LmN9')
    .reply(302, '', { Location: '/short-video/3xburnkmj3auazc?fid=0' });
  nock('https://www.kuaishou.com').get('/short-video/3xburnkmj3auazc').query(true).reply(302, '', {
    Location: 'https://v.m.chenzhongtech.com/fw/long-video/3xburnkmj3auazc?photoId=3xburnkmj3auazc',
  });
  page(fixture('kuaishou-video.html'));
  const data = dataOf((await runJiexi('https://www.kuaishou.com/f/X7kQp2LmN9')).outcome);
  t.equal(data.id, '3xburnkmj3auazc');
  t.ok(nock.isDone(), 'the long-video path was fetched as /fw/photo/');
});

t.test('deleted post: result 223 → NOT_FOUND', async (t) => {
  shortLink();
  page(fixture('kuaishou-deleted.html'));
  const { outcome } = await runJiexi(SHARE);
  t.match(outcome, { ok: false, code: 'NOT_FOUND', message: /223/, message_zh: '快手视频不存在或已删除' });
});

t.test('result 1 without photo → NOT_FOUND', async (t) => {
  shortLink();
  page(fixture('kuaishou-photo-missing.html'));
  t.match((await runJiexi(SHARE)).outcome, { ok: false, code: 'NOT_FOUND' });
});

t.test('captcha: result 2001 → UPSTREAM_FAILED naming the code', async (t) => {
  shortLink();
  page(fixture('kuaishou-captcha.html'));
  t.strictSame((await runJiexi(SHARE)).outcome, {
    ok: false,
    code: 'UPSTREAM_FAILED',
    message: 'Kuaishou share page: captcha required, IP rate-limited (result 2001) ([2001] antispam need captcha).',
    message_zh: '快手要求验证码（访问受限），请稍后重试',
  });
});

t.test('result 50 (signature) and 2 (desktop page) → UPSTREAM_FAILED with the code', async (t) => {
  for (const [result, msg, en, zh] of [
    [
      50,
      '"签名验证失败"',
      'Kuaishou share page: signature check failed (result 50) (签名验证失败).',
      '快手签名校验失败，请稍后重试',
    ],
    [
      2,
      'null',
      'Kuaishou share page: refused (result 2, desktop page served).',
      '快手拒绝了请求（返回了网页版页面），请稍后重试',
    ],
    [7, 'null', 'Kuaishou share page: result 7.', '快手分享页返回错误（result 7）'],
  ] as const) {
    shortLink();
    page(
      `<html><script>window.INIT_STATE = {"x":{"result":${result},"error_msg":${msg},"photo":null}}</script></html>`,
    );
    t.strictSame(
      (await runJiexi(SHARE)).outcome,
      { ok: false, code: 'UPSTREAM_FAILED', message: en, message_zh: zh },
      `result ${result}`,
    );
  }
});

t.test('verification page without INIT_STATE → UPSTREAM_FAILED naming the step', async (t) => {
  shortLink();
  page(fixture('kuaishou-verify.html'));
  t.strictSame((await runJiexi(SHARE)).outcome, {
    ok: false,
    code: 'UPSTREAM_FAILED',
    message: 'Kuaishou share page could not be read (verification page or changed layout).',
    message_zh: '快手分享页无法读取（验证页面或页面结构已变化）',
    detail: 'page has no window.INIT_STATE',
  });
});

t.test('empty body → UPSTREAM_FAILED', async (t) => {
  shortLink();
  page('');
  t.strictSame((await runJiexi(SHARE)).outcome, {
    ok: false,
    code: 'UPSTREAM_FAILED',
    message: 'Kuaishou share page: empty body.',
    message_zh: '快手分享页返回空内容',
  });
  shortLink();
  page('<html>busy</html>', 503);
  t.strictSame((await runJiexi(SHARE)).outcome, {
    ok: false,
    code: 'UPSTREAM_FAILED',
    message: 'Kuaishou share page: HTTP 503.',
    message_zh: '快手分享页返回 HTTP 503',
  });
});

t.test('changed shape: INIT_STATE without a result/photo object → UPSTREAM_FAILED', async (t) => {
  shortLink();
  page(fixture('kuaishou-changed.html'));
  t.strictSame((await runJiexi(SHARE)).outcome, {
    ok: false,
    code: 'UPSTREAM_FAILED',
    message: 'Kuaishou share page: INIT_STATE has no object with result/photo (changed shape).',
    message_zh: '快手分享页缺少作品数据（页面数据格式已变化）',
  });
});

t.test('short link that does not redirect → UPSTREAM_FAILED', async (t) => {
  nock('https://v.kuaishou.com').get('/13x0B9e').reply(200, '<html>快手</html>');
  t.strictSame((await runJiexi(SHARE)).outcome, {
    ok: false,
    code: 'UPSTREAM_FAILED',
    message: 'Kuaishou short link: expected a redirect, got HTTP 200.',
    message_zh: '快手短链接没有跳转（HTTP 200）',
  });
});

t.test('short link to a live room → UNSUPPORTED, target not fetched', async (t) => {
  shortLink('https://live.kuaishou.com/u/3xabc');
  const { outcome, fetched } = await runJiexi(SHARE);
  t.match(outcome, {
    ok: false,
    code: 'UNSUPPORTED',
    message: 'Not a Kuaishou video link.',
    message_zh: '不是快手视频链接',
  });
  t.equal(fetched.length, 1);
});

t.test('slow upstream → UPSTREAM_TIMEOUT', async (t) => {
  shortLink();
  nock('https://v.m.chenzhongtech.com')
    .get(PAGE_PATH)
    .query(true)
    .reply(slowReply(1000, 200, fixture('kuaishou-video.html')));
  t.strictSame((await runJiexi(SHARE, { deadlineMs: 150 })).outcome, {
    ok: false,
    code: 'UPSTREAM_TIMEOUT',
    message: 'Kuaishou share page request timed out, please retry later',
    message_zh: '快手分享页请求超时，请稍后重试',
    detail: 'fetch timed out: v.m.chenzhongtech.com did not answer in time',
  });
});

t.test('network failure → UPSTREAM_FAILED naming the step', async (t) => {
  nock('https://v.kuaishou.com').get('/13x0B9e').replyWithError('socket hang up');
  t.strictSame((await runJiexi(SHARE)).outcome, {
    ok: false,
    code: 'UPSTREAM_FAILED',
    message: 'Kuaishou short link request failed, please retry later',
    message_zh: '快手短链接请求失败，请稍后重试',
    detail: 'fetch failed: v.kuaishou.com: socket hang up',
  });
});

t.test('findPhotoState scans obfuscated keys, prefers the object whose photo has media', async (t) => {
  const ok = { result: 1, photo: { photoId: 'a', mainMvUrls: [{ url: 'https://v1.kwaicdn.com/a.mp4' }] } };
  const stub = { result: 1, photo: { photoId: 'a' } };
  t.equal(
    findPhotoState({ tusjoh: { result: 1 }, share: stub, dpogjh: { nested: ok } }),
    ok,
    'media beats a stub met first',
  );
  const atlas = { result: 1, photo: { ext_params: { atlas: { cdn: ['p5.a.yximgs.com'], list: ['/a.jpg'] } } } };
  t.equal(findPhotoState({ share: stub, x: atlas }), atlas, 'an atlas counts as media');
  const captcha = { result: 2001, photo: null };
  t.equal(findPhotoState({ share: stub, x: captcha }), captcha, 'without media an error result explains why');
  const deleted = { result: 1, photo: null };
  t.equal(findPhotoState({ share: stub, x: deleted }), deleted, 'then an explicit null photo (deleted)');
  t.equal(findPhotoState({ share: stub }), stub, 'a stub alone is returned (and read as a changed shape)');
  t.same(findPhotoState({ a: { result: 2001 } }), { result: 2001 });
  t.equal(findPhotoState({ a: { b: 1 } }), null);
});

t.test(
  '2026 H5 image post: short link → m.kuaishou.com/fw/photo, atlas beside photo with cdnList, sizes and music',
  async (t) => {
    shortLink('https://m.kuaishou.com/fw/photo/3xhk7atlas2026q?cc=share_copylink&shareToken=Y7def');
    nock('https://m.kuaishou.com')
      .get('/fw/photo/3xhk7atlas2026q')
      .query(true)
      .matchHeader('user-agent', /iPhone/)
      .reply(200, fixture('kuaishou-atlas-2026.html'));
    const data = dataOf((await runJiexi(SHARE)).outcome);
    t.strictSame(data, {
      platform: 'kuaishou',
      id: '3xhk7atlas2026q',
      type: 'images',
      title: '秋天的公园 #秋天',
      cover: 'https://p4.a.yximgs.com/upic/2026/09/12/park_cover.jpg',
      url: null,
      images: [
        'https://p4.a.yximgs.com/ufile/atlas/MTAyNjA5_0.webp',
        'https://p4.a.yximgs.com/ufile/atlas/MTAyNjA5_1.webp',
      ],
      author: { id: '3344556677', name: '公园散步', avatar: 'https://p4.a.yximgs.com/uhead/AB/2026/09/12/park.jpg' },
      duration: 12,
      music: { title: '秋日私语', author: null, url: 'https://m2.a.yximgs.com/ufile/atlas/MTAyNjA5_music.m4a' },
      image_items: [
        { url: 'https://p4.a.yximgs.com/ufile/atlas/MTAyNjA5_0.webp', live_photo_url: null, width: 1080, height: 1440 },
        { url: 'https://p4.a.yximgs.com/ufile/atlas/MTAyNjA5_1.webp', live_photo_url: null, width: 1080, height: 1920 },
      ],
      watermark: false,
      watermark_url: null,
      note: null,
    });
  },
);

t.test('m.kuaishou.com and /fw/video/ links are read as the photo page', async (t) => {
  nock('https://m.kuaishou.com').get('/fw/photo/3xburnkmj3auazc').reply(200, fixture('kuaishou-video.html'));
  const { outcome, fetched } = await runJiexi('https://m.kuaishou.com/fw/video/3xburnkmj3auazc');
  t.equal(dataOf(outcome).id, '3xburnkmj3auazc');
  t.strictSame(fetched, ['https://m.kuaishou.com/fw/photo/3xburnkmj3auazc']);
});

t.test('INIT_STATE with share + recommendation + photo objects: the photo object is read', async (t) => {
  shortLink();
  page(fixture('kuaishou-multi-object.html'));
  const data = dataOf((await runJiexi(SHARE)).outcome);
  t.equal(
    data.url,
    'https://v1.kwaicdn.com/ksc2/Xn0AbC_720p.mp4?pkey=AAW&tag=1-1719&clientCacheKey=3xburnkmj3auazc_b.mp4',
  );
  t.equal(data.author.name, '小明的旅行日记', 'not the sharer');
  t.equal(data.cover, 'https://p2.a.yximgs.com/upic/2026/07/01/12/BMjAyNjA3_cover.jpg?tag=1');
});

t.test('deleted post next to a share object that still names it → NOT_FOUND, not a changed shape', async (t) => {
  shortLink();
  page(fixture('kuaishou-deleted-with-share.html'));
  t.match((await runJiexi(SHARE)).outcome, {
    ok: false,
    code: 'NOT_FOUND',
    message: /does not exist or was deleted/,
    message_zh: '快手视频不存在或已删除',
  });
});

t.test('share page with only a photo stub (no mainMvUrls, no atlas) → UPSTREAM_FAILED changed shape', async (t) => {
  shortLink();
  page(
    '<html><script>window.INIT_STATE = {"tibsfJogp":{"result":1,"photo":{"photoId":"3xburnkmj3auazc","caption":"x"}}}</script></html>',
  );
  t.strictSame((await runJiexi(SHARE)).outcome, {
    ok: false,
    code: 'UPSTREAM_FAILED',
    message: 'Kuaishou share page: photo has neither mainMvUrls nor atlas images (changed shape).',
    message_zh: '快手作品既没有视频地址也没有图片（页面数据格式已变化）',
  });
});

t.test(
  'short link redirected to the captcha site → UPSTREAM_FAILED (retry later), captcha host never fetched',
  async (t) => {
    shortLink('https://captcha.zt.kuaishou.com/iframe/index.html?captchaSession=abc&redirectUrl=x');
    const { outcome, fetched } = await runJiexi(SHARE);
    t.strictSame(outcome, {
      ok: false,
      code: 'UPSTREAM_FAILED',
      message:
        'Kuaishou short link: redirected to a captcha page (captcha.zt.kuaishou.com); IP rate-limited, retry later.',
      message_zh: '快手要求验证码（访问受限），请稍后重试',
    });
    t.strictSame(fetched, ['https://v.kuaishou.com/13x0B9e']);
  },
);

t.test('H5 long link is fetched directly (no short-link step, no cookie)', async (t) => {
  nock('https://v.m.chenzhongtech.com', { badheaders: ['cookie'] })
    .get(PAGE_PATH)
    .query({ photoId: '3xburnkmj3auazc' })
    .reply(200, fixture('kuaishou-video.html'));
  const { outcome, fetched } = await runJiexi(
    `看看 https://v.m.chenzhongtech.com${PAGE_PATH}?photoId=3xburnkmj3auazc。`,
  );
  t.equal(dataOf(outcome).id, '3xburnkmj3auazc');
  t.equal(fetched.length, 1);
});

t.test('short link redirecting in a loop → UPSTREAM_FAILED in both languages', async (t) => {
  nock('https://v.kuaishou.com')
    .get('/13x0B9e')
    .times(4)
    .reply(302, '', { Location: 'https://v.kuaishou.com/13x0B9e' });
  t.strictSame((await runJiexi(SHARE)).outcome, {
    ok: false,
    code: 'UPSTREAM_FAILED',
    message: 'Kuaishou short link: too many redirects.',
    message_zh: '快手短链接跳转次数过多',
  });
});
