import nock from 'nock';
import t from 'tap';
import { dataOf, fixture, runJiexi, slowReply } from './_helpers.js';

nock.disableNetConnect();
t.afterEach(() => {
  nock.cleanAll();
});

const BV = 'BV1oM4y1G7LW';
const SHARE = '【【日常】在山里住了一周-哔哩哔哩】 https://b23.tv/aB3dE5f';
const VIDEO_LOCATION = `https://www.bilibili.com/video/${BV}?p=1&share_medium=android&share_plat=android&share_source=COPY&share_tag=s_i&timestamp=1751000000&unique_k=aB3dE5f`;
const api = (): nock.Scope =>
  nock('https://api.bilibili.com')
    .matchHeader('referer', 'https://www.bilibili.com/')
    .matchHeader('user-agent', /Windows NT.*Chrome/);

function b23(location = VIDEO_LOCATION): nock.Scope {
  return nock('https://b23.tv').get('/aB3dE5f').reply(302, '', { Location: location });
}
function view(status: number, body: string): nock.Scope {
  return api().get('/x/web-interface/view').query({ bvid: BV }).reply(status, body);
}
function playurl(body: string, cid = '111222333'): nock.Scope {
  return api()
    .get('/x/player/playurl')
    .query({ otype: 'json', fnver: '0', fnval: '0', qn: '80', bvid: BV, cid, platform: 'html5' })
    .reply(200, body);
}

t.test('b23 share text → Location (not followed) → view → playurl durl[0]', async (t) => {
  b23();
  view(200, fixture('bili-view.json'));
  playurl(fixture('bili-playurl.json'));
  const { outcome, fetched } = await runJiexi(SHARE);
  t.same(dataOf(outcome), {
    platform: 'bilibili',
    id: BV,
    type: 'video',
    title: '【日常】在山里住了一周',
    cover: 'https://i0.hdslb.com/bfs/archive/0a1b2c3d4e5f.jpg',
    url: 'https://upos-sz-mirrorcos.bilivideo.com/upgcxcode/33/33/111222333/111222333-1-192.mp4?e=ig8euxZM2rNcNbRV&deadline=1754013600&gen=playurlv2&os=cosbv&oi=0&platform=html5&upsig=abc',
    images: [],
    author: { id: '98765432', name: '山野小记', avatar: 'https://i1.hdslb.com/bfs/face/face01.jpg' },
    duration: 300,
    music: null,
    image_items: [],
    watermark: false,
    watermark_url: null,
    note: null,
  });
  t.notOk(
    fetched.some((u) => u.includes('www.bilibili.com')),
    'www.bilibili.com is never fetched (412 risk control)',
  );
});

t.test('long link with ?p=2 picks the second part; m.bilibili.com works too', async (t) => {
  view(200, fixture('bili-view.json'));
  playurl(fixture('bili-playurl.json'), '111222444');
  const data = dataOf((await runJiexi(`https://m.bilibili.com/video/${BV}/?p=2&spm_id_from=333`)).outcome);
  t.equal(data.duration, 312);
});

t.test('b23 chain: b23 → b23 → video', async (t) => {
  nock('https://b23.tv').get('/aB3dE5f').reply(302, '', { Location: 'https://b23.tv/Zz9Yy8x' });
  nock('https://b23.tv').get('/Zz9Yy8x').reply(301, '', { Location: VIDEO_LOCATION });
  view(200, fixture('bili-view.json'));
  playurl(fixture('bili-playurl.json'));
  t.equal(dataOf((await runJiexi(SHARE)).outcome).id, BV);
});

t.test('b23 to a live room → UNSUPPORTED "not a Bilibili video link", target not fetched', async (t) => {
  b23('https://live.bilibili.com/21452505?broadcast_type=0');
  const { outcome, fetched } = await runJiexi(SHARE);
  t.strictSame(outcome, {
    ok: false,
    code: 'UNSUPPORTED',
    message: 'Not a Bilibili video link.',
    message_zh: '不是B站视频链接',
  });
  t.equal(fetched.length, 1);
});

t.test('b23 without a redirect → UPSTREAM_FAILED', async (t) => {
  nock('https://b23.tv').get('/aB3dE5f').reply(200, '<html></html>');
  t.strictSame((await runJiexi(SHARE)).outcome, {
    ok: false,
    code: 'UPSTREAM_FAILED',
    message: 'Bilibili b23.tv short link: no redirect (HTTP 200).',
    message_zh: 'B站短链接没有跳转（HTTP 200）',
  });
});

t.test('deleted / hidden / under review / private → NOT_FOUND', async (t) => {
  for (const [code, message] of [
    [-404, '啥都木有'],
    [62002, '稿件不可见'],
    [62004, '稿件审核中'],
    [62012, '仅UP主自己可见'],
  ] as const) {
    b23();
    view(200, JSON.stringify({ code, message, ttl: 1 }));
    t.strictSame(
      (await runJiexi(SHARE)).outcome,
      {
        ok: false,
        code: 'NOT_FOUND',
        message: `Bilibili: the video does not exist or is not visible (code ${code} ${message}).`,
        message_zh: 'B站视频不存在或不可见',
      },
      `code ${code}`,
    );
  }
});

t.test('risk control: code -412 and HTTP 412 → UPSTREAM_FAILED throttled', async (t) => {
  b23();
  view(200, JSON.stringify({ code: -412, message: '请求被拦截', ttl: 1 }));
  t.strictSame((await runJiexi(SHARE)).outcome, {
    ok: false,
    code: 'UPSTREAM_FAILED',
    message: 'Bilibili view API: throttled (code -412 请求被拦截).',
    message_zh: 'B站视频信息接口访问受限，请稍后重试',
  });
  b23();
  view(412, '<html>412</html>');
  t.strictSame((await runJiexi(SHARE)).outcome, {
    ok: false,
    code: 'UPSTREAM_FAILED',
    message: 'Bilibili view API: throttled (HTTP 412).',
    message_zh: 'B站视频信息接口访问受限，请稍后重试',
  });
});

t.test('other API codes → UPSTREAM_FAILED with code and message', async (t) => {
  b23();
  view(200, JSON.stringify({ code: -403, message: '访问权限不足', ttl: 1 }));
  t.strictSame((await runJiexi(SHARE)).outcome, {
    ok: false,
    code: 'UPSTREAM_FAILED',
    message: 'Bilibili view API: code -403 访问权限不足.',
    message_zh: 'B站视频信息接口返回错误（code -403）',
  });
});

t.test('empty body and changed shape → UPSTREAM_FAILED naming the step', async (t) => {
  b23();
  view(200, '');
  t.strictSame((await runJiexi(SHARE)).outcome, {
    ok: false,
    code: 'UPSTREAM_FAILED',
    message: 'Bilibili view API: empty body.',
    message_zh: 'B站视频信息接口返回空内容',
  });
  b23();
  view(200, '<html>risk page</html>');
  t.strictSame((await runJiexi(SHARE)).outcome, {
    ok: false,
    code: 'UPSTREAM_FAILED',
    message: 'Bilibili view API: not the expected JSON (changed shape).',
    message_zh: 'B站视频信息接口返回的数据格式已变化',
  });
  b23();
  view(503, '<html>busy</html>');
  t.strictSame((await runJiexi(SHARE)).outcome, {
    ok: false,
    code: 'UPSTREAM_FAILED',
    message: 'Bilibili view API: HTTP 503.',
    message_zh: 'B站视频信息接口返回 HTTP 503',
  });
});

t.test('no pages → UPSTREAM_FAILED; empty durl → UPSTREAM_FAILED', async (t) => {
  b23();
  view(200, fixture('bili-view-nopages.json'));
  t.strictSame((await runJiexi(SHARE)).outcome, {
    ok: false,
    code: 'UPSTREAM_FAILED',
    message: 'Bilibili view API: the video has no pages (no playable part).',
    message_zh: 'B站视频没有可播放的分P',
  });
  b23();
  view(200, fixture('bili-view.json'));
  playurl(fixture('bili-playurl-empty.json'));
  t.strictSame((await runJiexi(SHARE)).outcome, {
    ok: false,
    code: 'UPSTREAM_FAILED',
    message: 'Bilibili playurl API: durl is empty (no progressive stream for this video).',
    message_zh: 'B站没有该视频的 MP4 播放地址',
  });
});

t.test('slow playurl → UPSTREAM_TIMEOUT', async (t) => {
  b23();
  view(200, fixture('bili-view.json'));
  api()
    .get('/x/player/playurl')
    .query(true)
    .reply(slowReply(1000, 200, fixture('bili-playurl.json')));
  t.strictSame((await runJiexi(SHARE, { deadlineMs: 150 })).outcome, {
    ok: false,
    code: 'UPSTREAM_TIMEOUT',
    message: 'Bilibili playurl API request timed out, please retry later',
    message_zh: 'B站播放地址接口请求超时，请稍后重试',
    detail: 'fetch timed out: api.bilibili.com did not answer in time',
  });
});

t.test('bilibili.com paths that are not videos → UNSUPPORTED, nothing fetched', async (t) => {
  for (const link of ['https://www.bilibili.com/read/cv123', 'https://www.bilibili.com/bangumi/play/ep1']) {
    const { outcome, fetched } = await runJiexi(link);
    t.match(outcome, { ok: false, code: 'UNSUPPORTED' }, link);
    t.same(fetched, []);
  }
});

t.test('b23 redirecting in a loop → UPSTREAM_FAILED in both languages', async (t) => {
  nock('https://b23.tv').get('/aB3dE5f').times(4).reply(302, '', { Location: 'https://b23.tv/aB3dE5f' });
  t.strictSame((await runJiexi(SHARE)).outcome, {
    ok: false,
    code: 'UPSTREAM_FAILED',
    message: 'Bilibili short link: too many redirects.',
    message_zh: 'B站短链接跳转次数过多',
  });
});
