// Only the platforms' own hosts are ever contacted. Links to other hosts or IP literals are UNSUPPORTED and
// never fetched: asserted three ways (host.fetch never called, nock interceptors left pending, no unmatched
// request reached nock).

import nock from 'nock';
import t from 'tap';
import { runJiexi } from './_helpers.js';

nock.disableNetConnect();
let unmatched = 0;
nock.emitter.on('no match', () => {
  unmatched++;
});
t.afterEach(() => {
  nock.cleanAll();
  unmatched = 0;
});

const TRAPS = [
  'http://127.0.0.1',
  'http://2130706433',
  'http://0x7f000001',
  'http://169.254.169.254',
  'http://[::1]',
  'https://evil.example',
  'https://douyin.com.evil.example',
];

function setTraps(): nock.Scope[] {
  return TRAPS.map((base) => nock(base).get(/.*/).reply(200, 'trap'));
}

t.test('links to other hosts or IP literals → UNSUPPORTED, nothing fetched', async (t) => {
  const texts = [
    '复制打开抖音，看看 https://evil.example/v/123 好看',
    'http://127.0.0.1:8080/admin',
    'http://2130706433/',
    'http://0x7f000001/',
    'http://[::1]/',
    'http://169.254.169.254/latest/meta-data/',
    'https://douyin.com.evil.example/video/1',
    'https://v.douyin.com@evil.example/x',
    'https://evil.example\\@b23.tv/aB3dE5f',
    '没有链接的文字',
  ];
  for (const text of texts) {
    const traps = setTraps();
    const { outcome, fetched } = await runJiexi(text);
    t.match(
      outcome,
      {
        ok: false,
        code: 'UNSUPPORTED',
        message: /^Supported: Douyin, Kuaishou, Xiaohongshu, Bilibili\. /,
        message_zh: '目前支持: 抖音、快手、小红书、B站',
      },
      text,
    );
    t.same(fetched, [], `${text}: host.fetch never called`);
    t.ok(
      traps.every((s) => !s.isDone()),
      `${text}: no trap hit`,
    );
    t.equal(unmatched, 0, `${text}: no request reached the network layer`);
    nock.cleanAll();
  }
});

t.test('a platform redirect to an IP or foreign host is not followed', async (t) => {
  const traps = setTraps();
  nock('https://b23.tv').get('/aB3dE5f').reply(302, '', { Location: 'http://169.254.169.254/latest/meta-data/' });
  const bili = await runJiexi('https://b23.tv/aB3dE5f');
  t.match(bili.outcome, { ok: false, code: 'UNSUPPORTED' });
  t.same(bili.fetched, ['https://b23.tv/aB3dE5f']);

  nock('https://v.kuaishou.com').get('/13x0B9e').reply(302, '', { Location: 'http://2130706433/fw/photo/3xabc' });
  const ks = await runJiexi('https://v.kuaishou.com/13x0B9e');
  t.match(ks.outcome, { ok: false, code: 'UNSUPPORTED' });
  t.same(ks.fetched, ['https://v.kuaishou.com/13x0B9e']);

  // XHS reads the share link's Location itself: a target off the note site is never fetched.
  nock('https://xhslink.com').get('/a/zGL52ubtpJ20').reply(302, '', { Location: 'http://127.0.0.1/' });
  const xhs = await runJiexi('http://xhslink.com/a/zGL52ubtpJ20');
  t.strictSame(xhs.outcome, {
    ok: false,
    code: 'UPSTREAM_FAILED',
    message: 'Xiaohongshu share link: redirected to 127.0.0.1 instead of the note page.',
    message_zh: '小红书分享链接跳转到了 127.0.0.1 而不是笔记页面',
  });
  t.same(xhs.fetched, ['https://xhslink.com/a/zGL52ubtpJ20']);
  t.ok(
    traps.every((s) => !s.isDone()),
    'no trap hit',
  );
});

t.test('a platform host resolving to a private address is refused by the host', async (t) => {
  const b23 = nock('https://b23.tv')
    .get('/aB3dE5f')
    .reply(302, '', { Location: 'https://www.bilibili.com/video/BV1oM4y1G7LW' });
  const { outcome } = await runJiexi('https://b23.tv/aB3dE5f', { dns: { 'b23.tv': ['10.0.0.7'] } });
  t.strictSame(outcome, {
    ok: false,
    code: 'UPSTREAM_FAILED',
    message: 'Bilibili b23.tv short link request failed, please retry later',
    message_zh: 'B站短链接请求失败，请稍后重试',
    detail: 'fetch refused: b23.tv resolves to private or reserved address 10.0.0.7',
  });
  t.notOk(b23.isDone());
});
