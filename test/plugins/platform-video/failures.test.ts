// platform-video: every way a Douyin lookup fails, and the error code and message each one becomes.

import nock from 'nock';
import t from 'tap';
import { type In, plugin } from '../../../plugins/platform-video/handler.js';
import { createDirectHost } from '../../helpers/direct-host.js';
import { DELETED_ID, fixture, ies, redirects, sharePage, shortLink, slidesinfo, VIDEO_ID } from './douyin-nock.js';

nock.disableNetConnect();
t.afterEach(() => nock.cleanAll());
t.teardown(() => nock.enableNetConnect());

async function run(input: In, deadlineMs?: number) {
  const host = createDirectHost({ plugin: 'platform-video', deadlineMs });
  try {
    return await plugin.run(input, host);
  } finally {
    host.dispose();
  }
}

const EMPTY = fixture('slidesinfo-empty.json');
const failed = (message: string, id = VIDEO_ID) => ({
  ok: false,
  code: 'UPSTREAM_FAILED',
  message,
  message_zh: `抖音：未能获取作品 ${id}，请稍后重试`,
});

t.test('deleted post: share page filter_list -> NOT_FOUND with the reason', async (t) => {
  slidesinfo(DELETED_ID, EMPTY, EMPTY);
  sharePage(DELETED_ID, fixture('share-page-deleted.html'));
  t.strictSame(await run({ id: DELETED_ID }), {
    ok: false,
    code: 'NOT_FOUND',
    message: `douyin: post ${DELETED_ID} is deleted or private (status_deleted: 作品已删除)`,
    message_zh: `抖音：作品 ${DELETED_ID} 已删除或不公开`,
  });
});

t.test('both sources well-formed and without the post -> NOT_FOUND', async (t) => {
  slidesinfo(DELETED_ID, EMPTY, EMPTY);
  sharePage(DELETED_ID, fixture('share-page-empty-list.html'));
  t.strictSame(await run({ id: DELETED_ID }), {
    ok: false,
    code: 'NOT_FOUND',
    message: `douyin: post ${DELETED_ID} does not exist or is private`,
    message_zh: `抖音：作品 ${DELETED_ID} 不存在或不公开`,
  });
});

t.test('anti-bot (JSVMP / captcha) page without _ROUTER_DATA', async (t) => {
  slidesinfo(VIDEO_ID, '');
  sharePage(VIDEO_ID, fixture('share-page-jsvmp.html'));
  t.strictSame(
    await run({ id: VIDEO_ID }),
    failed('douyin: slidesinfo returned an empty body; share page has no _ROUTER_DATA (anti-bot or captcha page)'),
  );
});

t.test('empty bodies everywhere', async (t) => {
  slidesinfo(VIDEO_ID, '');
  sharePage(VIDEO_ID, '');
  t.strictSame(
    await run({ id: VIDEO_ID }),
    failed('douyin: slidesinfo returned an empty body; share page returned an empty body'),
  );
});

t.test('2026-08 share page (loaderData without videoInfoRes) after an empty slidesinfo body', async (t) => {
  slidesinfo(VIDEO_ID, '');
  sharePage(VIDEO_ID, fixture('share-page-2026-08.html'));
  t.strictSame(
    await run({ id: VIDEO_ID }),
    failed('douyin: slidesinfo returned an empty body; share page has no videoInfoRes (page shape changed)'),
  );
});

t.test('empty aweme_details twice next to the 2026-08 page stays UPSTREAM_FAILED, not NOT_FOUND', async (t) => {
  slidesinfo(VIDEO_ID, EMPTY, EMPTY);
  sharePage(VIDEO_ID, fixture('share-page-2026-08.html'));
  t.strictSame(
    await run({ id: VIDEO_ID }),
    failed(
      'douyin: slidesinfo has no aweme_details (also with request_source=200); share page has no videoInfoRes (page shape changed)',
    ),
  );
});

t.test('changed shape: slidesinfo without aweme_details', async (t) => {
  slidesinfo(VIDEO_ID, fixture('slidesinfo-changed.json'));
  sharePage(VIDEO_ID, fixture('share-page-2026-08.html'));
  t.strictSame(
    await run({ id: VIDEO_ID }),
    failed(
      'douyin: slidesinfo has no aweme_details (response shape changed); share page has no videoInfoRes (page shape changed)',
    ),
  );
});

t.test('status_code != 0, unparsable _ROUTER_DATA', async (t) => {
  slidesinfo(VIDEO_ID, fixture('slidesinfo-error.json'));
  sharePage(VIDEO_ID, '<script>window._ROUTER_DATA = {"loaderData": {broken</script>');
  t.strictSame(
    await run({ id: VIDEO_ID }),
    failed(
      'douyin: slidesinfo returned status_code 11110 (encrypt_data_miss); share page _ROUTER_DATA is unparsable or has no loaderData',
    ),
  );
});

t.test('unparsable slidesinfo JSON, share page HTTP 503', async (t) => {
  slidesinfo(VIDEO_ID, '<html>busy</html>');
  ies().get(`/share/video/${VIDEO_ID}`).reply(503, 'busy');
  t.strictSame(
    await run({ id: VIDEO_ID }),
    failed('douyin: slidesinfo returned unparsable JSON; share page answered HTTP 503'),
  );
});

t.test('network failure is UPSTREAM_FAILED naming the step', async (t) => {
  ies().get('/web/api/v2/aweme/slidesinfo/').query(true).replyWithError('socket hang up');
  sharePage(VIDEO_ID, fixture('share-page-2026-08.html'));
  const out = await run({ id: VIDEO_ID });
  t.equal(out.ok === false && out.code, 'UPSTREAM_FAILED');
  t.equal(
    out.ok === false && out.message,
    'douyin: slidesinfo request failed; share page has no videoInfoRes (page shape changed)',
  );
  t.match(
    out.ok === false && out.detail,
    /^slidesinfo request failed: fetch failed: www\.iesdouyin\.com: socket hang up$/,
  );
});

// nock 15's .delay() only holds back the body of a fetch() response, and that body stream ignores the abort
// signal, so host.fetch would still resolve after the deadline. A reply that waits before answering is
// aborted like a real slow server, so the slow-upstream cases use that.
function slowly(ms: number, status: number, body: string, headers: Record<string, string> = {}) {
  return async (): Promise<[number, string, Record<string, string>]> => {
    await new Promise((resolve) => setTimeout(resolve, ms));
    return [status, body, headers];
  };
}

t.test('slow slidesinfo past the deadline -> UPSTREAM_TIMEOUT', async (t) => {
  ies()
    .get('/web/api/v2/aweme/slidesinfo/')
    .query(true)
    .reply(slowly(1000, 200, fixture('slidesinfo-video.json')));
  t.strictSame(await run({ id: VIDEO_ID }, 150), {
    ok: false,
    code: 'UPSTREAM_TIMEOUT',
    message: 'douyin: slidesinfo timed out',
    message_zh: '抖音：请求超时，请稍后重试',
    detail: 'slidesinfo timed out: fetch timed out: www.iesdouyin.com did not answer in time',
  });
});

t.test('slow short link past the deadline -> UPSTREAM_TIMEOUT', async (t) => {
  nock('https://v.douyin.com')
    .get('/7PK95qKezLc/')
    .reply(slowly(1000, 302, '', { Location: redirects.short_link_video.location }));
  t.strictSame(await run({ url: 'https://v.douyin.com/7PK95qKezLc/' }, 150), {
    ok: false,
    code: 'UPSTREAM_TIMEOUT',
    message: 'douyin: short link timed out',
    message_zh: '抖音：短链接请求超时',
    detail: 'fetch timed out: v.douyin.com did not answer in time',
  });
});

t.test('short link that redirects to Xigua -> UNSUPPORTED', async (t) => {
  shortLink(redirects.short_link_xigua);
  t.strictSame(await run({ url: '3.00 复制打开抖音 https://v.douyin.com/XgVd8kR2/ 西瓜视频' }), {
    ok: false,
    code: 'UNSUPPORTED',
    message: 'douyin: the link leads to Xigua (ixigua.com), which is not supported',
    message_zh: '抖音：该链接指向西瓜视频（ixigua.com），暂不支持',
  });
});

t.test('unknown short code (404) -> NOT_FOUND; redirect to a profile -> UNSUPPORTED', async (t) => {
  nock('https://v.douyin.com').get('/nope1234/').reply(404, 'not found');
  t.strictSame(await run({ url: 'https://v.douyin.com/nope1234/' }), {
    ok: false,
    code: 'NOT_FOUND',
    message: 'douyin: the short link does not exist',
    message_zh: '抖音：短链接不存在',
  });
  nock('https://v.douyin.com')
    .get('/user1234/')
    .reply(302, '', { Location: 'https://www.iesdouyin.com/share/user/MS4wLjABAAAA' });
  t.strictSame(await run({ url: 'https://v.douyin.com/user1234/' }), {
    ok: false,
    code: 'UNSUPPORTED',
    message: 'douyin: the link is not a Douyin video or image post',
    message_zh: '抖音：该链接不是抖音视频或图文作品',
  });
});

t.test('input checks, no network', async (t) => {
  const BAD_ID = [
    'id must be a numeric Douyin aweme id (10-32 digits)',
    'id 必须是抖音作品 ID（aweme id），10 至 32 位数字',
  ] as const;
  const NEITHER = ['give url (a Douyin link or share text) or id', '请传 url（抖音链接或分享文本）或 id'] as const;
  const NO_LINK = ['url contains no http(s) link', 'url 中没有 http(s) 链接'] as const;
  /** Input, code, the English message, the Chinese one. */
  const cases: Array<[In, string, string, string]> = [
    [{ id: 'abc' }, 'INVALID_INPUT', ...BAD_ID],
    [{ id: '12345' }, 'INVALID_INPUT', ...BAD_ID],
    [{ id: `${VIDEO_ID}x` }, 'INVALID_INPUT', ...BAD_ID],
    [{}, 'INVALID_INPUT', ...NEITHER],
    [{ url: '   ' }, 'INVALID_INPUT', ...NEITHER],
    [
      { url: 'https://v.douyin.com/7PK95qKezLc/', id: VIDEO_ID },
      'INVALID_INPUT',
      'give either url or id, not both',
      'url 和 id 只能传其中一个',
    ],
    [{ url: '复制打开抖音，看看【作品】' }, 'INVALID_INPUT', ...NO_LINK],
    [
      { url: 'https://v.kuaishou.com/13x0B9e 标题' },
      'UNSUPPORTED',
      'only Douyin links are supported, not v.kuaishou.com',
      '只支持抖音链接，不支持 v.kuaishou.com 的链接',
    ],
    [
      { url: 'https://v.ixigua.com/iJxyz123/' },
      'UNSUPPORTED',
      'Xigua (ixigua.com) links are not supported',
      '不支持西瓜视频（ixigua.com）链接',
    ],
    // user-info would send a real URL parser to evil.example: not taken as a Douyin link.
    [{ url: 'https://v.douyin.com@evil.example/7PK95qKezLc/' }, 'INVALID_INPUT', ...NO_LINK],
  ];
  for (const [input, code, message, message_zh] of cases) {
    t.strictSame(await run(input), { ok: false, code, message, message_zh }, JSON.stringify(input));
  }
  t.strictSame(
    await run({ url: 'https://www.douyin.com/user/MS4wLjABAAAA' }),
    {
      ok: false,
      code: 'UNSUPPORTED',
      message: 'douyin: the link is not a Douyin video or image post',
      message_zh: '抖音：该链接不是抖音视频或图文作品',
    },
    'a profile page',
  );
});
