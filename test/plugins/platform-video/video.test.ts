// platform-video: a Douyin video post, reached by short link, share text, long links and numeric id.

import nock from 'nock';
import t from 'tap';
import type { DouyinInfo } from '../../../plugins/_lib/douyin/index.js';
import { plugin } from '../../../plugins/platform-video/handler.js';
import { createDirectHost } from '../../helpers/direct-host.js';
import {
  fixture,
  PLAY_CDN_URL,
  play302,
  redirects,
  sharePage,
  shortLink,
  slidesinfo,
  VIDEO_ID,
} from './douyin-nock.js';

nock.disableNetConnect();
t.afterEach(() => nock.cleanAll());
t.teardown(() => nock.enableNetConnect());

const expected: DouyinInfo = {
  id: VIDEO_ID,
  type: 'video',
  desc: '春天的第一场雨 #春天 #vlog #春天',
  create_time: '2024-03-09T16:00:00.000Z',
  author: {
    uid: '98765432101',
    sec_uid: 'MS4wLjABAAAAxyzSecUid_Example-01',
    nickname: '作者的作品',
    avatar: 'https://p3.douyinpic.com/aweme/1080x1080/aweme-avatar/abc.jpeg?from=327834062',
    signature: '记录生活',
  },
  statistics: { digg: 12034, comment: 567, share: 89, collect: 1011, play: 0 },
  video: {
    play_url: PLAY_CDN_URL,
    play_url_watermark:
      'https://aweme.snssdk.com/aweme/v1/playwm/?video_id=v0200fg10000cnl1n9jc77u0abcdefg&ratio=720p&line=0',
    cover: 'https://p3-sign.douyinpic.com/tos-cn-p-0015/cover01~c5_300x400.jpeg?x-expires=1711209600',
    dynamic_cover: 'https://p3-sign.douyinpic.com/obj/tos-cn-p-0015/dyn01?x-expires=1711209600',
    origin_cover: 'https://p3-sign.douyinpic.com/tos-cn-p-0015/origin01~tplv-dy-360p.jpeg?x-expires=1711209600',
    duration: 15.233,
    width: 720,
    height: 1280,
    bit_rates: [
      {
        gear_name: 'normal_1080_0',
        bit_rate: 2123456,
        url: 'https://v26-web.douyinvod.com/a1b2/65f1/video/tos/cn/tos-cn-ve-15/o1080/?a=6383&br=2073&bt=2073',
        width: 1080,
        height: 1920,
      },
      {
        gear_name: 'normal_720_0',
        bit_rate: 1234567,
        url: 'https://v26-web.douyinvod.com/a1b2/65f1/video/tos/cn/tos-cn-ve-15/o720/?a=6383&br=1205&bt=1205',
        width: 720,
        height: 1280,
      },
    ],
  },
  music: {
    title: '@作者的作品创作的原声',
    author: '作者的作品',
    url: 'https://sf3-cdn-tos.douyinstatic.com/obj/ies-music/7345493067782163211.mp3',
    cover: 'https://p3.douyinpic.com/aweme/1080x1080/music-cover.jpeg',
  },
  images: [],
  hashtags: ['春天', 'vlog'],
  share_url: `https://www.iesdouyin.com/share/video/${VIDEO_ID}/?region=CN&mid=7345493067782163211`,
};

async function run(input: { url?: string; id?: string }) {
  const host = createDirectHost({ plugin: 'platform-video' });
  try {
    return await plugin.run(input, host);
  } finally {
    host.dispose();
  }
}

t.test('short link: 302 -> slidesinfo -> playwm->play 302, every field exact', async (t) => {
  const scopes = [
    shortLink(redirects.short_link_video),
    slidesinfo(VIDEO_ID, fixture('slidesinfo-video.json')),
    play302(),
  ];
  const out = await run({ url: 'https://v.douyin.com/7PK95qKezLc/' });
  t.strictSame(out, { ok: true, data: expected });
  for (const s of scopes) t.ok(s.isDone(), 'every upstream step was called');
});

t.test('whole Douyin share text: the link is taken out of the Chinese text', async (t) => {
  shortLink(redirects.short_link_video);
  slidesinfo(VIDEO_ID, fixture('slidesinfo-video.json'));
  play302();
  const text =
    '7.87 Pjm:/ 复制打开抖音，看看【作者的作品】春天的第一场雨… https://v.douyin.com/7PK95qKezLc/ Kjp:/ 03/01 W@m.Qk';
  t.strictSame(await run({ url: text }), { ok: true, data: expected });
});

t.test('share text where the link is glued to full-width punctuation', async (t) => {
  shortLink(redirects.short_link_video);
  slidesinfo(VIDEO_ID, fixture('slidesinfo-video.json'));
  play302();
  const out = await run({ url: '看看这个https://v.douyin.com/7PK95qKezLc/，复制此链接' });
  t.equal(out.ok && out.data.id, VIDEO_ID);
});

t.test('numeric id (route /api/video/:id) skips the short link', async (t) => {
  slidesinfo(VIDEO_ID, fixture('slidesinfo-video.json'));
  play302();
  t.strictSame(await run({ id: VIDEO_ID }), { ok: true, data: expected });
});

t.test('old share page shape (videoInfoRes) is the fallback when slidesinfo is empty', async (t) => {
  slidesinfo(VIDEO_ID, '');
  sharePage(VIDEO_ID, fixture('share-page-old.html'));
  play302();
  t.strictSame(await run({ id: VIDEO_ID }), { ok: true, data: expected });
});

t.test('long link forms resolve without a network hop', async (t) => {
  const links = [
    `https://www.iesdouyin.com/share/video/${VIDEO_ID}/?region=CN&mid=1&u_code=0`,
    `https://www.douyin.com/video/${VIDEO_ID}`,
    `https://www.douyin.com/jingxuan?modal_id=${VIDEO_ID}`,
    `https://www.douyin.com/user/MS4wLjABAAAA?from_tab_name=main&modal_id=${VIDEO_ID}`,
    `https://m.douyin.com/share/video/${VIDEO_ID}/`,
  ];
  for (const url of links) {
    slidesinfo(VIDEO_ID, fixture('slidesinfo-video.json'));
    play302();
    const out = await run({ url });
    t.equal(out.ok && out.data.id, VIDEO_ID, url);
  }
});

t.test('play address without a Location keeps the replaced (watermark-free) URL', async (t) => {
  slidesinfo(VIDEO_ID, fixture('slidesinfo-video.json'));
  nock('https://aweme.snssdk.com').get('/aweme/v1/play/').query(true).reply(200, '');
  const out = await run({ id: VIDEO_ID });
  t.equal(
    out.ok && out.data.video.play_url,
    'https://aweme.snssdk.com/aweme/v1/play/?video_id=v0200fg10000cnl1n9jc77u0abcdefg&ratio=720p&line=0',
  );
});

t.test('play address request failing keeps the replaced URL and logs why', async (t) => {
  slidesinfo(VIDEO_ID, fixture('slidesinfo-video.json'));
  nock('https://aweme.snssdk.com').get('/aweme/v1/play/').query(true).replyWithError('connection reset');
  const host = createDirectHost({ plugin: 'platform-video' });
  try {
    const out = await plugin.run({ id: VIDEO_ID }, host);
    t.equal(
      out.ok && out.data.video.play_url,
      'https://aweme.snssdk.com/aweme/v1/play/?video_id=v0200fg10000cnl1n9jc77u0abcdefg&ratio=720p&line=0',
    );
    t.equal(host.logs.length, 1);
    t.match(host.logs[0], {
      level: 'warn',
      fields: { reason: 'play address request failed', detail: /^fetch failed: aweme\.snssdk\.com: connection reset$/ },
    });
  } finally {
    host.dispose();
  }
});
