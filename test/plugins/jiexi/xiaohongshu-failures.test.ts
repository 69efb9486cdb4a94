// Xiaohongshu failure shapes: a bot wall is UPSTREAM_FAILED (retryable, uncharged), never NOT_FOUND; an empty
// explore entry is read once more through /discovery/item/<id> with the same xsec_token; only a page that says
// the note is gone, or a second empty read, is NOT_FOUND.

import nock from 'nock';
import t from 'tap';
import { dataOf, fixture, runJiexi, slowReply } from './_helpers.js';

nock.disableNetConnect();
t.afterEach(() => {
  nock.cleanAll();
});

const XHS = 'https://www.xiaohongshu.com';
const VIDEO_ID = '66b1c2d3000000001203e4f5';
const EMPTY_ID = '68a0b1c2000000001e00d9e0';
const SHARE = 'http://xhslink.com/a/zGL52ubtpJ20，复制本条信息，打开【小红书】App查看精彩内容！';

function shareRedirect(location: string): void {
  nock('https://xhslink.com').get('/a/zGL52ubtpJ20').reply(302, '', { Location: location });
}

/** The mobile (iPhone) read of /discovery/item/<id>, the last step before NOT_FOUND. */
function mobilePage(id: string): nock.Interceptor {
  return nock(XHS)
    .get(`/discovery/item/${id}`)
    .query(true)
    .matchHeader('user-agent', /iPhone/);
}

t.test('login-only: empty explore entry → desktop /discovery/item re-read → mobile page → NOT_FOUND', async (t) => {
  nock(XHS)
    .get(`/explore/${EMPTY_ID}`)
    .query({ xsec_token: 'ABtok=', xsec_source: 'pc_feed' })
    .reply(200, fixture('xhs-login-only.html'));
  nock(XHS)
    .get(`/discovery/item/${EMPTY_ID}`)
    .query({ xsec_token: 'ABtok=' })
    .matchHeader('user-agent', /Windows NT/)
    .reply(200, fixture('xhs-login-only.html'));
  mobilePage(EMPTY_ID).reply(200, fixture('xhs-mobile-empty.html'));
  const { outcome, fetched } = await runJiexi(`${XHS}/explore/${EMPTY_ID}?xsec_token=ABtok%3D&xsec_source=pc_feed`);
  t.strictSame(outcome, {
    ok: false,
    code: 'NOT_FOUND',
    message: 'Xiaohongshu: the note is not publicly visible: login-only, removed or restricted (errorCode -510001).',
    message_zh: '小红书笔记不可见（仅登录可见、已删除或受限）',
  });
  t.strictSame(fetched, [
    `${XHS}/explore/${EMPTY_ID}?xsec_token=ABtok%3D&xsec_source=pc_feed`,
    `${XHS}/discovery/item/${EMPTY_ID}?xsec_token=ABtok%3D`,
    `${XHS}/discovery/item/${EMPTY_ID}?xsec_token=ABtok%3D&xsec_source=pc_feed`,
  ]);
  t.ok(nock.isDone(), 'desktop and mobile reads both made');
});

t.test('empty explore entry that the discovery page serves → success from the second read', async (t) => {
  const emptyVideoEntry = fixture('xhs-login-only.html').replaceAll(EMPTY_ID, VIDEO_ID);
  nock(XHS).get(`/explore/${VIDEO_ID}`).query(true).reply(200, emptyVideoEntry);
  nock(XHS).get(`/discovery/item/${VIDEO_ID}`).query({ xsec_token: 'T1' }).reply(200, fixture('xhs-video.html'));
  const data = dataOf((await runJiexi(`${XHS}/explore/${VIDEO_ID}?xsec_token=T1`)).outcome);
  t.equal(data.id, VIDEO_ID);
  t.equal(data.url, 'https://sns-video-bd.xhscdn.com/pre_post/1040g2t031origkey0001');
});

t.test('explore link without xsec_token: re-read, mobile read, then NOT_FOUND suggesting the share link', async (t) => {
  nock(XHS).get(`/explore/${EMPTY_ID}`).reply(200, fixture('xhs-login-only.html'));
  nock(XHS)
    .get(`/discovery/item/${EMPTY_ID}`)
    .matchHeader('user-agent', /Windows NT/)
    .reply(200, fixture('xhs-login-only.html'));
  nock(XHS)
    .get(`/discovery/item/${EMPTY_ID}`)
    .matchHeader('user-agent', /iPhone/)
    .reply(200, fixture('xhs-mobile-empty.html'));
  const { outcome, fetched } = await runJiexi(`${XHS}/explore/${EMPTY_ID}`);
  t.strictSame(outcome, {
    ok: false,
    code: 'NOT_FOUND',
    message:
      'Xiaohongshu: the note is not publicly visible: login-only, removed or restricted (errorCode -510001). The link has no xsec_token: paste the share link instead.',
    message_zh: '小红书笔记不可见（仅登录可见、已删除或受限）。链接缺少 xsec_token，请改用分享链接',
  });
  t.equal(fetched.length, 3);
});

t.test(
  'share link landing on an empty discovery entry → no desktop re-read, one mobile read → NOT_FOUND',
  async (t) => {
    shareRedirect(`${XHS}/discovery/item/${EMPTY_ID}?xsec_token=T1&xsec_source=app_share`);
    nock(XHS)
      .get(`/discovery/item/${EMPTY_ID}`)
      .query(true)
      .matchHeader('user-agent', /Windows NT/)
      .reply(200, fixture('xhs-login-only.html'));
    mobilePage(EMPTY_ID).reply(200, fixture('xhs-mobile-empty.html'));
    const { outcome, fetched } = await runJiexi(SHARE);
    t.match(outcome, { ok: false, code: 'NOT_FOUND', message: /not publicly visible/ });
    t.strictSame(fetched, [
      'https://xhslink.com/a/zGL52ubtpJ20',
      `${XHS}/discovery/item/${EMPTY_ID}?xsec_token=T1&xsec_source=app_share`,
      `${XHS}/discovery/item/${EMPTY_ID}?xsec_token=T1&xsec_source=app_share`,
    ]);
  },
);

t.test('a bot wall on the second read stays UPSTREAM_FAILED, not NOT_FOUND', async (t) => {
  nock(XHS).get(`/explore/${EMPTY_ID}`).query(true).reply(200, fixture('xhs-login-only.html'));
  nock(XHS).get(`/discovery/item/${EMPTY_ID}`).query(true).reply(461, '', { Verifytype: '102', Verifyuuid: 'abc' });
  t.strictSame((await runJiexi(`${XHS}/explore/${EMPTY_ID}?xsec_token=T1`)).outcome, {
    ok: false,
    code: 'UPSTREAM_FAILED',
    message: 'Xiaohongshu note page: bot wall, captcha, HTTP 461; retry later.',
    message_zh: '小红书安全限制，请稍后重试',
  });
});

t.test('bot walls → UPSTREAM_FAILED (安全限制, retry later)', async (t) => {
  const walls: Array<[string, () => void, RegExp]> = [
    [
      'redirect to /404/sec_… error_code=300031 (当前笔记暂时无法浏览)',
      () => {
        shareRedirect(
          `${XHS}/404/sec_x8Kq2?redirectPath=${encodeURIComponent(`${XHS}/discovery/item/${VIDEO_ID}`)}&error_code=300031&error_msg=%E5%BD%93%E5%89%8D%E7%AC%94%E8%AE%B0%E6%9A%82%E6%97%B6%E6%97%A0%E6%B3%95%E6%B5%8F%E8%A7%88`,
        );
        nock(XHS)
          .get('/404/sec_x8Kq2')
          .query(true)
          .reply(200, '<html><title>小红书</title>当前笔记暂时无法浏览</html>');
      },
      /error_code 300031/,
    ],
    [
      '/404?error_code=300031 without sec_ path',
      () => {
        shareRedirect(`${XHS}/404?source=note&error_code=300031`);
        nock(XHS).get('/404').query(true).reply(200, '<html>当前笔记暂时无法浏览</html>');
      },
      /error_code 300031/,
    ],
    [
      'redirect to /website-login/error?error_code=300017',
      () => {
        shareRedirect(`${XHS}/website-login/error?redirectPath=x&error_code=300017`);
        nock(XHS).get('/website-login/error').query(true).reply(200, '<html>安全限制</html>');
      },
      /login\/captcha page, error_code 300017/,
    ],
    [
      'redirect to /login (risk-control downgrade)',
      () => {
        shareRedirect(`${XHS}/login?redirectPath=${encodeURIComponent(`${XHS}/discovery/item/${VIDEO_ID}`)}`);
        nock(XHS).get('/login').query(true).reply(200, '<html>登录后查看更多</html>');
      },
      /login\/captcha page/,
    ],
    [
      'HTTP 461 captcha',
      () => {
        shareRedirect(`${XHS}/discovery/item/${VIDEO_ID}?xsec_token=T1`);
        nock(XHS).get(`/discovery/item/${VIDEO_ID}`).query(true).reply(461, '', { Verifytype: '102' });
      },
      /captcha, HTTP 461/,
    ],
    [
      'HTTP 471 captcha',
      () => {
        shareRedirect(`${XHS}/discovery/item/${VIDEO_ID}?xsec_token=T1`);
        nock(XHS).get(`/discovery/item/${VIDEO_ID}`).query(true).reply(471, '');
      },
      /captcha, HTTP 471/,
    ],
    [
      'security page with 安全限制 and the captcha SDK, no state',
      () => {
        shareRedirect(`${XHS}/discovery/item/${VIDEO_ID}?xsec_token=T1`);
        nock(XHS).get(`/discovery/item/${VIDEO_ID}`).query(true).reply(200, fixture('xhs-antibot.html'));
      },
      /security page/,
    ],
    [
      'JSON error body code 300031',
      () => {
        shareRedirect(`${XHS}/discovery/item/${VIDEO_ID}?xsec_token=T1`);
        nock(XHS)
          .get(`/discovery/item/${VIDEO_ID}`)
          .query(true)
          .reply(200, '{"code":300031,"success":false,"msg":"当前笔记暂时无法浏览","data":{}}');
      },
      /error code 300031/,
    ],
    [
      'state with serverRequestInfo.errorCode 300012 (IP at risk)',
      () => {
        shareRedirect(`${XHS}/discovery/item/${EMPTY_ID}?xsec_token=T1`);
        const risky = fixture('xhs-login-only.html').replace('"errorCode":-510001', '"errorCode":300012');
        nock(XHS).get(`/discovery/item/${EMPTY_ID}`).query(true).reply(200, risky);
      },
      /errorCode 300012/,
    ],
  ];
  for (const [name, arrange, detail] of walls) {
    arrange();
    const { outcome } = await runJiexi(SHARE);
    t.match(
      outcome,
      {
        ok: false,
        code: 'UPSTREAM_FAILED',
        message: /^Xiaohongshu note page: bot wall/,
        message_zh: '小红书安全限制，请稍后重试',
      },
      name,
    );
    t.match(outcome, { message: detail }, name);
  }
});

t.test('throttled: HTTP 418 and 412 → UPSTREAM_FAILED "throttled"', async (t) => {
  for (const status of [418, 412]) {
    shareRedirect(`${XHS}/discovery/item/${VIDEO_ID}?xsec_token=T1`);
    nock(XHS).get(`/discovery/item/${VIDEO_ID}`).query(true).reply(status, '');
    t.strictSame((await runJiexi(SHARE)).outcome, {
      ok: false,
      code: 'UPSTREAM_FAILED',
      message: `Xiaohongshu note page: throttled (HTTP ${status}); retry later.`,
      message_zh: `小红书笔记页访问受限（HTTP ${status}），请稍后重试`,
    });
  }
});

t.test('gone: the page or the redirect says the note does not exist → NOT_FOUND', async (t) => {
  shareRedirect(`${XHS}/404?source=note&error_code=-510000&error_msg=%E7%AC%94%E8%AE%B0%E4%B8%8D%E5%AD%98%E5%9C%A8`);
  nock(XHS).get('/404').query(true).reply(200, '<html>你访问的页面不见了</html>');
  t.match((await runJiexi(SHARE)).outcome, {
    ok: false,
    code: 'NOT_FOUND',
    message: /^Xiaohongshu: the note does not exist or was removed.*error_code -510000/,
    message_zh: '小红书笔记不存在或已删除',
  });

  nock(XHS).get('/explore/68a0b1c2000000001e00ffff').query(true).reply(200, fixture('xhs-gone-state.html'));
  const state = await runJiexi(`${XHS}/explore/68a0b1c2000000001e00ffff?xsec_token=T1`);
  t.match(state.outcome, { ok: false, code: 'NOT_FOUND', message: /serverRequestInfo.errorCode -510000/ });
  t.equal(state.fetched.length, 1, 'a note the page calls gone is not read twice');

  shareRedirect(`${XHS}/discovery/item/${VIDEO_ID}?xsec_token=T1`);
  nock(XHS)
    .get(`/discovery/item/${VIDEO_ID}`)
    .query(true)
    .reply(200, '<html><body><div class="not-found">笔记不存在</div></body></html>');
  t.match((await runJiexi(SHARE)).outcome, { ok: false, code: 'NOT_FOUND', message: /the page says so/ });

  // A desktop 404 is not final: the mobile page is asked, and only its 404 too makes it NOT_FOUND.
  shareRedirect(`${XHS}/discovery/item/${VIDEO_ID}?xsec_token=T1`);
  nock(XHS)
    .get(`/discovery/item/${VIDEO_ID}`)
    .query(true)
    .matchHeader('user-agent', /Windows NT/)
    .reply(404, '');
  mobilePage(VIDEO_ID).reply(404, '');
  const http404 = await runJiexi(SHARE);
  t.match(http404.outcome, { ok: false, code: 'NOT_FOUND', message: /HTTP 404/ });
  t.equal(http404.fetched.length, 3, 'short link, desktop page, mobile page');
});

t.test('expired share link: currentNoteId "undefined" → NOT_FOUND with the reason', async (t) => {
  shareRedirect(`${XHS}/discovery/item/${VIDEO_ID}?xsec_token=T1`);
  nock(XHS).get(`/discovery/item/${VIDEO_ID}`).query(true).reply(200, fixture('xhs-expired.html'));
  t.match((await runJiexi(SHARE)).outcome, { ok: false, code: 'NOT_FOUND', message: /expired/ });
});

t.test('changed shape, empty body, unknown layout → UPSTREAM_FAILED naming the step', async (t) => {
  const cases: Array<[number, string, string, string, string?]> = [
    [
      200,
      fixture('xhs-changed.html'),
      'Xiaohongshu note page: __INITIAL_STATE__ has no note.noteDetailMap (changed shape).',
      '小红书笔记页缺少笔记数据（页面数据格式已变化）',
    ],
    [200, '', 'Xiaohongshu note page: empty body.', '小红书笔记页返回空内容'],
    [
      200,
      '<html><body><div id="app"></div></body></html>',
      'Xiaohongshu note page could not be read (anti-bot page or changed layout).',
      '小红书笔记页无法读取（验证页面或页面结构已变化）',
      'page has no window.__INITIAL_STATE__',
    ],
    [503, '', 'Xiaohongshu note page: HTTP 503.', '小红书笔记页返回 HTTP 503'],
  ];
  for (const [status, body, message, message_zh, detail] of cases) {
    shareRedirect(`${XHS}/discovery/item/${VIDEO_ID}?xsec_token=T1`);
    nock(XHS).get(`/discovery/item/${VIDEO_ID}`).query(true).reply(status, body);
    const want = { ok: false, code: 'UPSTREAM_FAILED', message, message_zh, ...(detail ? { detail } : {}) };
    t.strictSame((await runJiexi(SHARE)).outcome, want, message);
  }
  const noStreams = fixture('xhs-video.html')
    .replace('"originVideoKey":"pre_post/1040g2t031origkey0001"', '"originVideoKey":""')
    .replace(/"stream":\{"h264":.*?\]\}\},"consumer"/, '"stream":{}},"consumer"');
  t.notMatch(
    noStreams,
    /masterUrl":"http:\/\/sns-video-bd\.xhscdn\.com\/stream\/79/,
    'fixture edited: no video streams left',
  );
  shareRedirect(`${XHS}/discovery/item/${VIDEO_ID}?xsec_token=T1`);
  nock(XHS).get(`/discovery/item/${VIDEO_ID}`).query(true).reply(200, noStreams);
  t.strictSame((await runJiexi(SHARE)).outcome, {
    ok: false,
    code: 'UPSTREAM_FAILED',
    message: 'Xiaohongshu note page: video note without a stream URL (changed shape).',
    message_zh: '小红书视频笔记缺少视频地址（页面数据格式已变化）',
  });
});

t.test('share link redirecting off the note site → UPSTREAM_FAILED, the other host never fetched', async (t) => {
  shareRedirect('https://evil.example.com/steal');
  const evil = nock('https://evil.example.com').get('/steal').reply(200, 'x');
  const { outcome, fetched } = await runJiexi(SHARE);
  t.strictSame(outcome, {
    ok: false,
    code: 'UPSTREAM_FAILED',
    message: 'Xiaohongshu share link: redirected to evil.example.com instead of the note page.',
    message_zh: '小红书分享链接跳转到了 evil.example.com 而不是笔记页面',
  });
  t.strictSame(fetched, ['https://xhslink.com/a/zGL52ubtpJ20']);
  t.notOk(evil.isDone(), 'the other host was never contacted');
});

t.test('a redirect inside the note site to a foreign host is refused by the host → UPSTREAM_FAILED', async (t) => {
  nock(XHS).get(`/explore/${VIDEO_ID}`).query(true).reply(302, '', { Location: 'https://evil.example.com/steal' });
  const evil = nock('https://evil.example.com').get('/steal').reply(200, 'x');
  t.strictSame((await runJiexi(`${XHS}/explore/${VIDEO_ID}?xsec_token=T1`)).outcome, {
    ok: false,
    code: 'UPSTREAM_FAILED',
    message: 'Xiaohongshu note page request failed, please retry later',
    message_zh: '小红书笔记页请求失败，请稍后重试',
    detail: 'fetch refused: host evil.example.com is not on the allow-list of plugin jiexi',
  });
  t.notOk(evil.isDone(), 'the other host was never contacted');
});

t.test('slow upstream → UPSTREAM_TIMEOUT', async (t) => {
  shareRedirect(`${XHS}/discovery/item/${VIDEO_ID}?xsec_token=T1`);
  nock(XHS)
    .get(`/discovery/item/${VIDEO_ID}`)
    .query(true)
    .reply(slowReply(1000, 200, fixture('xhs-video.html')));
  t.strictSame((await runJiexi(SHARE, { deadlineMs: 150 })).outcome, {
    ok: false,
    code: 'UPSTREAM_TIMEOUT',
    message: 'Xiaohongshu note page request timed out, please retry later',
    message_zh: '小红书笔记页请求超时，请稍后重试',
    detail: 'fetch timed out: www.xiaohongshu.com did not answer in time',
  });
});

t.test('share link that does not redirect, or redirects in a loop → UPSTREAM_FAILED in both languages', async (t) => {
  nock('https://xhslink.com').get('/a/zGL52ubtpJ20').reply(200, '<html>小红书</html>');
  t.strictSame((await runJiexi(SHARE)).outcome, {
    ok: false,
    code: 'UPSTREAM_FAILED',
    message: 'Xiaohongshu share link: expected a redirect, got HTTP 200.',
    message_zh: '小红书分享链接没有跳转（HTTP 200）',
  });
  nock('https://xhslink.com')
    .get('/a/zGL52ubtpJ20')
    .times(3)
    .reply(302, '', { Location: 'https://xhslink.com/a/zGL52ubtpJ20' });
  t.strictSame((await runJiexi(SHARE)).outcome, {
    ok: false,
    code: 'UPSTREAM_FAILED',
    message: 'Xiaohongshu share link: too many redirects.',
    message_zh: '小红书分享链接跳转次数过多',
  });
});
