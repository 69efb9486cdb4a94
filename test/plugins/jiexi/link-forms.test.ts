// Every link form people share in 2026 (the table in plugins/jiexi/README.md), each answered from page shapes the
// maintained parsers read: the form is recognised, the right host is asked, and the post comes back. Links that
// cannot name a post are INVALID_INPUT before anything is fetched.

import nock from 'nock';
import t from 'tap';
import { awemeIdFromParts } from '../../../plugins/_lib/douyin/links.js';
import { parseUrl } from '../../../plugins/_lib/url-lite.js';
import { refFromBiliUrl } from '../../../plugins/jiexi/platforms/bilibili.js';
import {
  fixture as dyFixture,
  IMAGE_ID,
  PLAY_CDN_URL,
  play302,
  slidesinfo,
  VIDEO_ID,
} from '../platform-video/douyin-nock.js';
import { dataOf, fixture, runJiexi } from './_helpers.js';

nock.disableNetConnect();
let unmatched = 0;
nock.emitter.on('no match', () => {
  unmatched++;
});
t.afterEach(() => {
  nock.cleanAll();
  unmatched = 0;
});

const parts = (url: string) => parseUrl(url) ?? (undefined as never);

t.test('Douyin: the aweme id in every long form', async (t) => {
  const cases: Array<[string, string | null]> = [
    [`https://www.douyin.com/video/${VIDEO_ID}`, VIDEO_ID],
    [`https://www.douyin.com/note/${IMAGE_ID}`, IMAGE_ID],
    [`https://www.douyin.com/slides/${IMAGE_ID}`, IMAGE_ID],
    [`https://www.iesdouyin.com/share/video/${VIDEO_ID}/?region=CN&mid=1`, VIDEO_ID],
    [`https://www.iesdouyin.com/share/note/${IMAGE_ID}/`, IMAGE_ID],
    [`https://www.iesdouyin.com/share/slides/${IMAGE_ID}/`, IMAGE_ID],
    [`https://m.douyin.com/share/video/${VIDEO_ID}`, VIDEO_ID],
    [`https://jingxuan.douyin.com/m/video/${VIDEO_ID}?app=yumme&utm_source=copy_link`, VIDEO_ID],
    [`https://jingxuan.douyin.com/m/slides/${IMAGE_ID}?app=yumme`, IMAGE_ID],
    [`https://www.douyin.com/jingxuan?modal_id=${VIDEO_ID}`, VIDEO_ID],
    [`https://www.douyin.com/user/MS4wLjABAAAAxyz?from_tab_name=main&modal_id=${VIDEO_ID}`, VIDEO_ID],
    [`https://www.douyin.com/search/%E6%B5%B7?vid=${VIDEO_ID}`, VIDEO_ID],
    ['https://www.douyin.com/user/MS4wLjABAAAAxyz', null],
    ['https://www.douyin.com/video/123', null],
  ];
  for (const [url, id] of cases) t.equal(awemeIdFromParts(parts(url)), id, url);
});

t.test('Douyin web slides link of an image/Live Photo post → slidesinfo (request_source=200)', async (t) => {
  slidesinfo(IMAGE_ID, dyFixture('slidesinfo-empty.json'), dyFixture('slidesinfo-images.json'));
  const { outcome, fetched } = await runJiexi(`https://www.douyin.com/slides/${IMAGE_ID}`);
  const data = dataOf(outcome);
  t.match(data, { platform: 'douyin', id: IMAGE_ID, type: 'images', url: null, title: '周末去看海 #海边' });
  t.ok(data.images.length > 0);
  t.equal(fetched.length, 2, 'no short-link step: the id is in the path');
});

t.test('抖音精选 link (jingxuan.douyin.com/m/video/<id>?app=yumme) → the video', async (t) => {
  slidesinfo(VIDEO_ID, dyFixture('slidesinfo-video.json'));
  play302();
  const link = `看看 https://jingxuan.douyin.com/m/video/${VIDEO_ID}?app=yumme&utm_source=copy_link 好看`;
  const data = dataOf((await runJiexi(link)).outcome);
  t.match(data, { platform: 'douyin', id: VIDEO_ID, type: 'video', url: PLAY_CDN_URL });
});

t.test('抖音精选 short link jx.douyin.com/<code> → Location → the post', async (t) => {
  nock('https://jx.douyin.com')
    .get('/aBcD123/')
    .matchHeader('user-agent', /iPhone/)
    .reply(302, '', { Location: `https://jingxuan.douyin.com/m/video/${VIDEO_ID}?app=yumme` });
  slidesinfo(VIDEO_ID, dyFixture('slidesinfo-video.json'));
  play302();
  const { outcome, fetched } = await runJiexi('https://jx.douyin.com/aBcD123/');
  t.equal(dataOf(outcome).id, VIDEO_ID);
  t.equal(fetched[0], 'https://jx.douyin.com/aBcD123/');
});

const KS_GIFSHOW_ID = '3xnebula8m2k5qz';

t.test('快手极速版 www.gifshow.com/fw/photo: obfuscated keys, several result objects → the linked photo', async (t) => {
  nock('https://www.gifshow.com')
    .get(`/fw/photo/${KS_GIFSHOW_ID}`)
    .query(true)
    .matchHeader('user-agent', /iPhone/)
    .reply(200, fixture('kuaishou-gifshow-2026.html'));
  const { outcome } = await runJiexi(
    `https://www.gifshow.com/fw/photo/${KS_GIFSHOW_ID}?cc=share_copylink&shareToken=Z9ghi&photoId=${KS_GIFSHOW_ID}`,
  );
  t.strictSame(dataOf(outcome), {
    platform: 'kuaishou',
    id: KS_GIFSHOW_ID,
    type: 'video',
    title: '极速版里的晚霞 #晚霞',
    cover: 'https://p3.a.yximgs.com/upic/2026/10/02/nebula_cover.jpg',
    url: 'https://v3.kwaicdn.com/ksc2/nebula8m2k5qz_720p.mp4?pkey=NEB&clientCacheKey=3xnebula8m2k5qz_b.mp4',
    images: [],
    author: { id: '4455667788', name: '晚霞收集者', avatar: 'https://p3.a.yximgs.com/uhead/AB/2026/10/02/nebula.jpg' },
    duration: 21,
    music: { title: '晚霞收集者创作的原声', author: null, url: null },
    image_items: [],
    watermark: false,
    watermark_url: null,
    note: null,
  });
});

t.test('快手极速版 short link v.kuaishouapp.com/s/<code> → www.gifshow.com page', async (t) => {
  nock('https://v.kuaishouapp.com')
    .get('/s/MIaftqoZ')
    .reply(302, '', { Location: `https://www.gifshow.com/fw/photo/${KS_GIFSHOW_ID}?shareToken=Z9ghi` });
  nock('https://www.gifshow.com')
    .get(`/fw/photo/${KS_GIFSHOW_ID}`)
    .query(true)
    .reply(200, fixture('kuaishou-gifshow-2026.html'));
  const data = dataOf((await runJiexi('https://v.kuaishouapp.com/s/MIaftqoZ 复制打开快手极速版')).outcome);
  t.equal(data.author.name, '晚霞收集者', 'not the recommended post met first');
});

t.test('Kuaishou state whose only media is another post → UPSTREAM_FAILED naming both ids', async (t) => {
  const onlyOthers = fixture('kuaishou-gifshow-2026.html').replace(
    /"gfudiQipupEfubjm\.7":.*"serialInfo":\{\}\}/,
    '"x":{}',
  );
  t.notMatch(onlyOthers, /晚霞收集者/, 'fixture edited: the linked photo is gone');
  nock('https://www.gifshow.com').get(`/fw/photo/${KS_GIFSHOW_ID}`).reply(200, onlyOthers);
  t.strictSame((await runJiexi(`https://www.gifshow.com/fw/photo/${KS_GIFSHOW_ID}`)).outcome, {
    ok: false,
    code: 'UPSTREAM_FAILED',
    message:
      'Kuaishou share page: INIT_STATE carries post 3xrecommend0002 but not the linked post 3xnebula8m2k5qz (changed shape).',
    message_zh: '快手分享页只有作品 3xrecommend0002，没有链接中的作品 3xnebula8m2k5qz（页面数据格式已变化）',
  });
});

const SHELL_ID = '3xshell7q4w9ze';

t.test('short link → desktop short-video shell (HTTP 200) → mobile m.kuaishou.com page', async (t) => {
  nock('https://v.kuaishou.com')
    .get('/2yAnzeZ')
    .reply(302, '', {
      Location: `https://www.kuaishou.com/short-video/${SHELL_ID}?fid=0&shareToken=Q2shl`,
      'Set-Cookie': 'did=web_77; path=/',
    });
  nock('https://www.kuaishou.com')
    .get(`/short-video/${SHELL_ID}`)
    .query(true)
    .reply(200, fixture('kuaishou-desktop-shell.html'));
  nock('https://m.kuaishou.com')
    .get(`/fw/photo/${SHELL_ID}`)
    .query({ fid: '0', shareToken: 'Q2shl' })
    .matchHeader('user-agent', /iPhone/)
    .matchHeader('cookie', 'did=web_77')
    .reply(200, fixture('kuaishou-mobile-2026.html'));
  const { outcome, fetched } = await runJiexi('https://v.kuaishou.com/2yAnzeZ');
  t.match(dataOf(outcome), {
    id: SHELL_ID,
    url: 'https://v1.kwaicdn.com/ksc2/shell7q4w9ze_720p.mp4?clientCacheKey=3xshell7q4w9ze_b.mp4',
    author: { name: '山里人家' },
  });
  t.strictSame(fetched, [
    'https://v.kuaishou.com/2yAnzeZ',
    `https://www.kuaishou.com/short-video/${SHELL_ID}?fid=0&shareToken=Q2shl`,
    `https://m.kuaishou.com/fw/photo/${SHELL_ID}?fid=0&shareToken=Q2shl`,
  ]);
});

t.test('desktop short-video 404 → mobile page; the mobile 404 too → NOT_FOUND', async (t) => {
  nock('https://www.kuaishou.com').get(`/short-video/${SHELL_ID}`).reply(404, '');
  nock('https://m.kuaishou.com').get(`/fw/photo/${SHELL_ID}`).reply(200, fixture('kuaishou-mobile-2026.html'));
  t.equal(dataOf((await runJiexi(`https://www.kuaishou.com/short-video/${SHELL_ID}`)).outcome).id, SHELL_ID);
  nock('https://www.kuaishou.com').get(`/short-video/${SHELL_ID}`).reply(404, '');
  nock('https://m.kuaishou.com').get(`/fw/photo/${SHELL_ID}`).reply(404, '');
  t.match((await runJiexi(`https://www.kuaishou.com/short-video/${SHELL_ID}`)).outcome, {
    ok: false,
    code: 'NOT_FOUND',
  });
});

t.test('other Kuaishou H5 hosts (c.kuaishou.com, www.kuaishou.com/fw/photo) are read on m.kuaishou.com', async (t) => {
  for (const link of [`https://c.kuaishou.com/fw/photo/${SHELL_ID}`, `https://www.kuaishou.com/fw/photo/${SHELL_ID}`]) {
    nock('https://m.kuaishou.com').get(`/fw/photo/${SHELL_ID}`).reply(200, fixture('kuaishou-mobile-2026.html'));
    const { outcome, fetched } = await runJiexi(link);
    t.equal(dataOf(outcome).id, SHELL_ID, link);
    t.strictSame(fetched, [`https://m.kuaishou.com/fw/photo/${SHELL_ID}`], link);
  }
});

const XHS = 'https://www.xiaohongshu.com';
const XHS_VIDEO = '66b1c2d3000000001203e4f5';

function xhs404(id: string): void {
  nock(XHS)
    .get(`/explore/${id}`)
    .query(true)
    .matchHeader('user-agent', /Windows NT/)
    .reply(302, '', { Location: `/404?source=note&errorCode=-510001&noteId=${id}` });
  nock(XHS).get('/404').query(true).reply(200, '<html><title>小红书</title>你访问的页面不见了</html>');
}

t.test(
  'XHS desktop /404?errorCode=-510001 for an existing note → the mobile page (noteData.data.noteData)',
  async (t) => {
    xhs404(XHS_VIDEO);
    nock(XHS)
      .get(`/discovery/item/${XHS_VIDEO}`)
      .query({ xsec_token: 'M1=', xsec_source: 'pc_feed' })
      .matchHeader('user-agent', /iPhone/)
      .reply(200, fixture('xhs-mobile-video.html'));
    const { outcome, fetched } = await runJiexi(`${XHS}/explore/${XHS_VIDEO}?xsec_token=M1%3D&xsec_source=pc_feed`);
    t.strictSame(outcome, {
      ok: true,
      data: {
        platform: 'xiaohongshu',
        id: XHS_VIDEO,
        type: 'video',
        title: '傍晚的海边',
        cover: 'https://sns-img-bd.xhscdn.com/1040g2sg31videocover0001',
        // No originVideoKey on the mobile page: the best clean stream (h265), never the WM_ h264 one.
        url: 'http://sns-video-bd.xhscdn.com/stream/79/114/259/01e7clean_h265.mp4',
        images: [],
        author: {
          id: '5f1a2b3c4d5e6f7a8b9c0d1e',
          name: '阿海',
          avatar: 'https://sns-avatar-qc.xhscdn.com/avatar/1040g2jo31abc?imageView2/2/w/120/format/jpg',
        },
        duration: 42,
        music: null,
        image_items: [],
        watermark: false,
        watermark_url: null,
        note: null,
      },
    });
    t.strictSame(fetched, [
      `${XHS}/explore/${XHS_VIDEO}?xsec_token=M1%3D&xsec_source=pc_feed`,
      `${XHS}/discovery/item/${XHS_VIDEO}?xsec_token=M1%3D&xsec_source=pc_feed`,
    ]);
  },
);

t.test('XHS share link → /404 naming the note in redirectPath → the note page, then the mobile page', async (t) => {
  const note = `${XHS}/discovery/item/${XHS_VIDEO}?xsec_token=R1`;
  nock('https://xhslink.com')
    .get('/o/8kQmZr2')
    .reply(302, '', { Location: `${XHS}/404?errorCode=-510001&redirectPath=${encodeURIComponent(note)}` });
  nock(XHS)
    .get(`/discovery/item/${XHS_VIDEO}`)
    .query({ xsec_token: 'R1' })
    .matchHeader('user-agent', /Windows NT/)
    .reply(302, '', { Location: '/404?errorCode=-510001' });
  nock(XHS).get('/404').query(true).reply(200, '<html>页面不见了</html>');
  nock(XHS)
    .get(`/discovery/item/${XHS_VIDEO}`)
    .query({ xsec_token: 'R1' })
    .matchHeader('user-agent', /iPhone/)
    .reply(200, fixture('xhs-mobile-video.html'));
  const { outcome, fetched } = await runJiexi('https://xhslink.com/o/8kQmZr2');
  t.equal(dataOf(outcome).id, XHS_VIDEO);
  t.strictSame(fetched, ['https://xhslink.com/o/8kQmZr2', note, note]);
});

t.test('XHS mobile image note with a Live Photo: originals, sizes and the clip', async (t) => {
  const id = '6901a2b3000000001d0ff0a1';
  xhs404(id);
  nock(XHS).get(`/discovery/item/${id}`).query(true).reply(200, fixture('xhs-mobile-images.html'));
  const data = dataOf((await runJiexi(`${XHS}/explore/${id}?xsec_token=T2`)).outcome);
  t.match(data, { type: 'images', title: '秋天的第一杯奶茶', author: { name: '奶茶研究所' } });
  t.strictSame(data.image_items, [
    {
      url: 'https://sns-img-bd.xhscdn.com/spectrum/1040g34o31milk0001',
      live_photo_url: null,
      width: 1242,
      height: 1656,
    },
    {
      url: 'https://sns-img-bd.xhscdn.com/notes_pre_post/1040g3k031milk0002',
      live_photo_url: 'http://sns-video-bd.xhscdn.com/stream/1/110/258/live_milk0002.mp4',
      width: 1242,
      height: 1242,
    },
  ]);
});

t.test('XHS desktop 404, mobile bot wall → UPSTREAM_FAILED (not NOT_FOUND); mobile empty → NOT_FOUND', async (t) => {
  xhs404(XHS_VIDEO);
  nock(XHS).get(`/discovery/item/${XHS_VIDEO}`).query(true).reply(461, '');
  t.strictSame((await runJiexi(`${XHS}/explore/${XHS_VIDEO}?xsec_token=T3`)).outcome, {
    ok: false,
    code: 'UPSTREAM_FAILED',
    message: 'Xiaohongshu note page: bot wall, captcha, HTTP 461; retry later; the desktop page had no note either',
    message_zh: '小红书安全限制，请稍后重试',
  });
  xhs404(XHS_VIDEO);
  nock(XHS).get(`/discovery/item/${XHS_VIDEO}`).query(true).reply(200, fixture('xhs-mobile-empty.html'));
  t.match((await runJiexi(`${XHS}/explore/${XHS_VIDEO}?xsec_token=T3`)).outcome, {
    ok: false,
    code: 'NOT_FOUND',
    message: /404 page, error_code -510001/,
  });
});

t.test('Bilibili: the video in every long form', async (t) => {
  const cases: Array<[string, object | null]> = [
    ['https://www.bilibili.com/video/BV1oM4y1G7LW/?p=2', { bvid: 'BV1oM4y1G7LW', aid: null, page: 2 }],
    ['https://m.bilibili.com/video/BV1oM4y1G7LW', { bvid: 'BV1oM4y1G7LW', aid: null, page: 1 }],
    ['https://www.bilibili.com/video/av170001', { bvid: null, aid: '170001', page: 1 }],
    ['https://www.bilibili.com/BV1oM4y1G7LW?p=3', { bvid: 'BV1oM4y1G7LW', aid: null, page: 3 }],
    ['https://bilibili.com/av170001', { bvid: null, aid: '170001', page: 1 }],
    ['https://www.bilibili.com/s/video/BV1oM4y1G7LW', { bvid: 'BV1oM4y1G7LW', aid: null, page: 1 }],
    [
      'https://www.bilibili.com/festival/2026bnj?bvid=BV1oM4y1G7LW&spm_id_from=333',
      { bvid: 'BV1oM4y1G7LW', aid: null, page: 1 },
    ],
    [
      'https://www.bilibili.com/list/485163549?sid=2196248&oid=114799761492950&bvid=BV1oM4y1G7LW',
      { bvid: 'BV1oM4y1G7LW', aid: null, page: 1 },
    ],
    ['https://www.bilibili.com/list/watchlater?bvid=BV1oM4y1G7LW', { bvid: 'BV1oM4y1G7LW', aid: null, page: 1 }],
    ['https://www.bilibili.com/blackboard/activity-x.html?aid=170001', { bvid: null, aid: '170001', page: 1 }],
    ['https://www.bilibili.com/festival/2026bnj?bvid=BV1bad', null],
    ['https://www.bilibili.com/bangumi/play/ep1', null],
  ];
  for (const [url, ref] of cases) t.same(refFromBiliUrl(parts(url)), ref, url);
});

function biliApis(): void {
  nock('https://api.bilibili.com')
    .get('/x/web-interface/view')
    .query({ bvid: 'BV1oM4y1G7LW' })
    .reply(200, fixture('bili-view.json'));
  nock('https://api.bilibili.com').get('/x/player/playurl').query(true).reply(200, fixture('bili-playurl.json'));
}

t.test('Bilibili festival page with ?bvid= → view + playurl, www never fetched', async (t) => {
  biliApis();
  const { outcome, fetched } = await runJiexi('https://www.bilibili.com/festival/2026bnj?bvid=BV1oM4y1G7LW');
  t.match(dataOf(outcome), { platform: 'bilibili', id: 'BV1oM4y1G7LW', type: 'video' });
  t.ok(fetched.every((u) => u.startsWith('https://api.bilibili.com/')));
});

t.test('bili2233.cn short link → Location (a festival page) → the video', async (t) => {
  nock('https://bili2233.cn')
    .get('/xyZ12ab')
    .reply(302, '', { Location: 'https://www.bilibili.com/festival/2026bnj?bvid=BV1oM4y1G7LW&share_source=COPY' });
  biliApis();
  const { outcome, fetched } = await runJiexi('【拜年纪-哔哩哔哩】 https://bili2233.cn/xyZ12ab');
  t.equal(dataOf(outcome).id, 'BV1oM4y1G7LW');
  t.equal(fetched[0], 'https://bili2233.cn/xyZ12ab');
});

t.test('links that cannot name a post → INVALID_INPUT, nothing fetched', async (t) => {
  const links: Array<[string, RegExp]> = [
    ['https://v.douyin.com/', /Douyin short link without its share code/],
    ['https://jx.douyin.com', /Douyin short link without its share code/],
    ['https://www.douyin.com/', /Douyin home page/],
    ['https://www.douyin.com/user/MS4wLjABAAAAxyz?from_tab_name=main', /Douyin profile page/],
    ['https://v.kuaishou.com/', /Kuaishou short link without its code/],
    ['https://v.kuaishouapp.com/s/', /Kuaishou short link without its code/],
    ['https://www.kuaishou.com/f/', /Kuaishou short link without its code/],
    ['https://www.kuaishou.com/profile/3xuser0001', /Kuaishou profile page/],
    ['https://m.kuaishou.com/fw/user/3xuser0001', /Kuaishou profile page/],
    ['https://www.gifshow.com/', /Kuaishou home page/],
    ['http://xhslink.com/', /Xiaohongshu short link without its code/],
    ['https://xhslink.com/a/', /Xiaohongshu short link without its code/],
    ['https://www.xiaohongshu.com/user/profile/5f1a2b3c4d5e6f7a8b9c0d1e', /Xiaohongshu profile page/],
    ['https://b23.tv/', /Bilibili short link without its code/],
    ['https://bili2233.cn', /Bilibili short link without its code/],
    ['https://space.bilibili.com/98765432', /Bilibili profile page/],
    ['https://www.bilibili.com/', /Bilibili home page/],
  ];
  for (const [link, why] of links) {
    const { outcome, fetched } = await runJiexi(`复制这个 ${link} 看看`);
    t.match(
      outcome,
      {
        ok: false,
        code: 'INVALID_INPUT',
        message: /^The link does not name a post: /,
        message_zh: '链接没有指向具体作品，请粘贴作品的分享链接',
      },
      link,
    );
    t.match(outcome, { message: why }, link);
    t.strictSame(fetched, [], `${link}: never fetched`);
  }
  t.equal(unmatched, 0, 'no request reached the network layer');
});
