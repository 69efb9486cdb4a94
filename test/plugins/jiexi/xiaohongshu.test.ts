// Xiaohongshu / RedNote: the right media out of real page shapes (video, image post, Live Photo) and every
// accepted link form. Failure shapes (bot walls, gone, login-only) are in xiaohongshu-failures.test.ts.

import nock from 'nock';
import t from 'tap';
import { formattedImageUrl, imageToken, isWatermarked, pickVideo } from '../../../plugins/jiexi/platforms/xhs-media.js';
import { dataOf, fixture, runJiexi } from './_helpers.js';

nock.disableNetConnect();
t.afterEach(() => {
  nock.cleanAll();
});

const VIDEO_ID = '66b1c2d3000000001203e4f5';
const IMAGES_ID = '6701a2b3000000001d0192a3';
const LIVE_ID = '6801a2b3000000001c03a4b5';
const SHARE =
  '45 阿海发布了一篇小红书笔记，快来看吧！ 😆 C4QcUbe3ImNZyv3 😆 http://xhslink.com/a/zGL52ubtpJ20，复制本条信息，打开【小红书】App查看精彩内容！';
const NOTE_QUERY =
  'app_platform=ios&app_version=8.80&share_from_user_hidden=true&xsec_source=app_share&type=video&xsec_token=CBxyz%3D&author_share=1&xhsshare=CopyLink';

/** xhslink short link 302 → note page on `site`. */
function shareRedirect(id: string, site = 'https://www.xiaohongshu.com'): void {
  nock('https://xhslink.com')
    .get('/a/zGL52ubtpJ20')
    .matchHeader('user-agent', /Windows NT/)
    .reply(302, '', { Location: `${site}/discovery/item/${id}?${NOTE_QUERY}` });
}

function notePage(id: string, site = 'https://www.xiaohongshu.com', kind = 'discovery/item'): nock.Interceptor {
  return nock(site, { badheaders: ['cookie'] })
    .get(`/${kind}/${id}`)
    .query(true)
    .matchHeader('user-agent', /Windows NT/);
}

const AUTHOR = {
  id: '5f1a2b3c4d5e6f7a8b9c0d1e',
  name: '阿海',
  avatar: 'https://sns-avatar-qc.xhscdn.com/avatar/1040g2jo31abc?imageView2/2/w/120/format/jpg',
};

t.test('video note: the original upload (originVideoKey), never the WM_ h264 stream; every field exact', async (t) => {
  shareRedirect(VIDEO_ID);
  nock('https://www.xiaohongshu.com', { badheaders: ['cookie'] })
    .get(`/discovery/item/${VIDEO_ID}`)
    .query((q) => q.xsec_token === 'CBxyz=')
    .reply(200, fixture('xhs-video.html'));
  const { outcome, fetched } = await runJiexi(SHARE);
  t.strictSame(outcome, {
    ok: true,
    data: {
      platform: 'xiaohongshu',
      id: VIDEO_ID,
      type: 'video',
      title: '傍晚的海边',
      cover: 'https://sns-img-bd.xhscdn.com/1040g2sg31videocover0001',
      url: 'https://sns-video-bd.xhscdn.com/pre_post/1040g2t031origkey0001',
      images: [],
      author: AUTHOR,
      duration: 37,
      music: null,
      image_items: [],
      watermark: false,
      watermark_url: null,
      note: null,
    },
  });
  t.strictSame(
    fetched,
    ['https://xhslink.com/a/zGL52ubtpJ20', `https://www.xiaohongshu.com/discovery/item/${VIDEO_ID}?${NOTE_QUERY}`],
    'always https: the short link is asked for its Location, then the note page it names is read',
  );
});

t.test('video without originVideoKey: best clean transcode (h265 1080p), not the WM_ h264', async (t) => {
  const noKey = fixture('xhs-video.html').replace(
    '"originVideoKey":"pre_post/1040g2t031origkey0001"',
    '"originVideoKey":""',
  );
  t.not(noKey, fixture('xhs-video.html'), 'fixture edited');
  shareRedirect(VIDEO_ID);
  notePage(VIDEO_ID).reply(200, noKey);
  const data = dataOf((await runJiexi(SHARE)).outcome);
  t.equal(
    data.url,
    'http://sns-video-bd.xhscdn.com/stream/79/110/114/01e6abcd_114.mp4',
    'X265_MP4_WEB_114 (1920) beats _115 (1280)',
  );
  t.equal(data.watermark, false);
});

t.test('video with only a WM_ stream: url null, watermark true, watermark_url and a note (zh + en)', async (t) => {
  const onlyWm = fixture('xhs-video.html')
    .replace('"originVideoKey":"pre_post/1040g2t031origkey0001"', '"originVideoKey":undefined')
    .replace(/"h265":\[.*?\],"av1"/, '"h265":[],"av1"');
  shareRedirect(VIDEO_ID);
  notePage(VIDEO_ID).reply(200, onlyWm);
  const data = dataOf((await runJiexi(SHARE)).outcome);
  t.equal(data.url, null);
  t.equal(data.watermark, true);
  t.equal(data.watermark_url, 'http://sns-video-bd.xhscdn.com/stream/79/110/259/01e6abcd_259.mp4');
  t.match(data.note, /水印.*watermark/);
});

t.test(
  'image note via explore link: originals rebuilt from the file token (spectrum/ and notes_pre_post/ kept)',
  async (t) => {
    nock('https://www.xiaohongshu.com')
      .get(`/explore/${IMAGES_ID}`)
      .query({ xsec_token: 'AB12', xsec_source: 'pc_feed' })
      .reply(200, fixture('xhs-images.html'));
    const data = dataOf(
      (await runJiexi(`https://www.xiaohongshu.com/explore/${IMAGES_ID}?xsec_token=AB12&xsec_source=pc_feed`)).outcome,
    );
    t.equal(data.type, 'images');
    t.equal(data.url, null);
    t.equal(data.title, '三天两晚大理攻略', 'empty title falls back to desc');
    t.strictSame(data.images, [
      'https://sns-img-bd.xhscdn.com/notes_pre_post/1040g3k031dali0001',
      'https://sns-img-bd.xhscdn.com/spectrum/1040g0k031dali0002',
      'https://sns-img-bd.xhscdn.com/1040g2sg31dali0003',
    ]);
    t.equal(data.cover, data.images[0]);
    t.strictSame(data.image_items[2], {
      url: 'https://sns-img-bd.xhscdn.com/1040g2sg31dali0003',
      live_photo_url: null,
      width: 1440,
      height: 1080,
    });
    t.notOk(
      data.images.some((u) => u.includes('!')),
      'no web-rendition suffix survives',
    );
  },
);

t.test('image_format png/jpg: the same originals converted by ci.xiaohongshu.com', async (t) => {
  for (const format of ['png', 'jpg'] as const) {
    nock('https://www.xiaohongshu.com').get(`/explore/${IMAGES_ID}`).query(true).reply(200, fixture('xhs-images.html'));
    const data = dataOf(
      (await runJiexi(`https://www.xiaohongshu.com/explore/${IMAGES_ID}?xsec_token=AB12`, { imageFormat: format }))
        .outcome,
    );
    t.strictSame(data.images, [
      `https://ci.xiaohongshu.com/notes_pre_post/1040g3k031dali0001?imageView2/format/${format}`,
      `https://ci.xiaohongshu.com/spectrum/1040g0k031dali0002?imageView2/format/${format}`,
      `https://ci.xiaohongshu.com/1040g2sg31dali0003?imageView2/format/${format}`,
    ]);
    t.equal(data.cover, data.images[0]);
  }
});

t.test('Live Photo note: each image plus its clip (stream.h264 WEB_LIVEPHOTO_19)', async (t) => {
  nock('https://www.xiaohongshu.com').get(`/explore/${LIVE_ID}`).query(true).reply(200, fixture('xhs-livephoto.html'));
  const data = dataOf((await runJiexi(`https://www.xiaohongshu.com/explore/${LIVE_ID}?xsec_token=LV1`)).outcome);
  t.equal(data.type, 'images');
  t.strictSame(data.image_items, [
    {
      url: 'https://sns-img-bd.xhscdn.com/notes_pre_post/1040g3k031live0001',
      live_photo_url: 'http://sns-video-bd.xhscdn.com/stream/1/10/19/01e8live0001_19.mp4',
      width: 1080,
      height: 1440,
    },
    {
      url: 'https://sns-img-bd.xhscdn.com/notes_pre_post/1040g3k031live0002',
      live_photo_url: null,
      width: 1080,
      height: 1440,
    },
  ]);
  t.strictSame(
    data.images,
    data.image_items.map((i) => i.url),
  );
});

t.test('every accepted link form reaches the note page', async (t) => {
  const forms: Array<[string, string, string]> = [
    // [pasted link, site that is fetched (always https), path fetched]
    [`https://xhslink.com/o/1kZVDhZks0n`, 'https://xhslink.com', '/o/1kZVDhZks0n'],
    [`http://xhslink.com/n/599W1aV2kpR`, 'https://xhslink.com', '/n/599W1aV2kpR'],
    [`http://xhslink.com/m/7fp0jbJ0uh`, 'https://xhslink.com', '/m/7fp0jbJ0uh'],
    [`https://xhslink.com/WNd9gI`, 'https://xhslink.com', '/WNd9gI'],
    [`http://xhslink.cn/o/9AbCdEfGh`, 'https://xhslink.cn', '/o/9AbCdEfGh'],
    [`https://xhslink.cn/a/9AbCdEfGh`, 'https://xhslink.cn', '/a/9AbCdEfGh'],
  ];
  for (const [link, site, path] of forms) {
    nock(site)
      .get(path)
      .reply(302, '', { Location: `https://www.xiaohongshu.com/discovery/item/${VIDEO_ID}?${NOTE_QUERY}` });
    notePage(VIDEO_ID).reply(200, fixture('xhs-video.html'));
    t.equal(dataOf((await runJiexi(link)).outcome).id, VIDEO_ID, link);
  }
  const direct: Array<[string, string, string]> = [
    [`https://www.xiaohongshu.com/explore/${VIDEO_ID}`, 'https://www.xiaohongshu.com', `/explore/${VIDEO_ID}`],
    [
      `https://xiaohongshu.com/discovery/item/${VIDEO_ID}?xsec_token=T`,
      'https://www.xiaohongshu.com',
      `/discovery/item/${VIDEO_ID}`,
    ],
    [
      `https://www.rednote.com/discovery/item/${VIDEO_ID}?xsec_token=T`,
      'https://www.rednote.com',
      `/discovery/item/${VIDEO_ID}`,
    ],
    [`https://www.rednote.com/explore/${VIDEO_ID}?xsec_token=T`, 'https://www.rednote.com', `/explore/${VIDEO_ID}`],
    [
      `https://www.xiaohongshu.com/search_result/${VIDEO_ID}?xsec_token=T`,
      'https://www.xiaohongshu.com',
      `/explore/${VIDEO_ID}`,
    ],
    [
      `https://www.xiaohongshu.com/user/profile/5f1a2b3c4d5e6f7a8b9c0d1e/${VIDEO_ID}?xsec_token=T`,
      'https://www.xiaohongshu.com',
      `/explore/${VIDEO_ID}`,
    ],
  ];
  for (const [link, site, path] of direct) {
    nock(site).get(path).query(true).reply(200, fixture('xhs-video.html'));
    const { outcome, fetched } = await runJiexi(link);
    t.equal(dataOf(outcome).id, VIDEO_ID, link);
    t.equal(fetched[0].split('?')[0], `${site}${path}`, `${link} fetched as ${path}`);
  }
});

t.test('currentNoteId that names no entry: the last filled noteDetailMap entry is read', async (t) => {
  const odd = fixture('xhs-video.html').replace(
    `"currentNoteId":"${VIDEO_ID}"`,
    '"currentNoteId":"000000000000000000000000"',
  );
  t.not(odd, fixture('xhs-video.html'), 'fixture edited');
  shareRedirect(VIDEO_ID);
  notePage(VIDEO_ID).reply(200, odd);
  t.equal(dataOf((await runJiexi(SHARE)).outcome).id, VIDEO_ID);
});

t.test('RedNote share link: xhslink → www.rednote.com note page', async (t) => {
  shareRedirect(VIDEO_ID, 'https://www.rednote.com');
  notePage(VIDEO_ID, 'https://www.rednote.com').reply(200, fixture('xhs-video.html'));
  t.equal(
    dataOf((await runJiexi(SHARE)).outcome).url,
    'https://sns-video-bd.xhscdn.com/pre_post/1040g2t031origkey0001',
  );
});

t.test('other paths on xhs hosts → UNSUPPORTED, nothing fetched', async (t) => {
  for (const link of [
    'https://www.rednote.com/explore',
    'https://xhslink.com/a/b/c',
    `https://www.xiaohongshu.com/explore/${VIDEO_ID.slice(0, 20)}`,
  ]) {
    const { outcome, fetched } = await runJiexi(link);
    t.match(outcome, { ok: false, code: 'UNSUPPORTED' }, link);
    t.strictSame(fetched, [], link);
  }
});

t.test('media rules', async (t) => {
  t.equal(
    imageToken(
      'http://sns-webpic-qc.xhscdn.com/202405050857/60985d4963cfb500a9b0838667eb3adc/1000g00828idf6nofk05g5ohki5uk137o8beqcv8!nd_dft_wgth_webp_3',
    ),
    '1000g00828idf6nofk05g5ohki5uk137o8beqcv8',
  );
  t.equal(
    imageToken(
      'https://sns-webpic-qc.xhscdn.com/202405210829/7c81f7805428d2268d2d0723e0f52ce2/spectrum/1040g0k030p06mpo4k0005ovbk4n9t3fq5ms4iu0!nd_dft_wlteh_webp_3',
    ),
    'spectrum/1040g0k030p06mpo4k0005ovbk4n9t3fq5ms4iu0',
  );
  t.equal(
    imageToken(
      'https://ci.xiaohongshu.com/notes_pre_post/1040g3k031il3oqupga005nsgsmfg8ue6bq81dbg?imageView2/2/w/format/png',
    ),
    'notes_pre_post/1040g3k031il3oqupga005nsgsmfg8ue6bq81dbg',
  );
  t.equal(
    imageToken('https://ci.xiaohongshu.com/bd871b0f-f9e7-54da-fd39-80b6af034dad?imageView2/2/w/100/h/100/q/75'),
    'bd871b0f-f9e7-54da-fd39-80b6af034dad',
  );
  t.equal(imageToken('https://example.com/202405050857/abc/x!nd'), null, 'not an XHS host');
  t.equal(imageToken('https://sns-img-bd.xhscdn.com/a/../b'), null, 'no path games');
  t.equal(
    formattedImageUrl('http://sns-webpic-qc.xhscdn.com/202608011200/1f2e3d/1040g2sg31x!nd_dft', 'png'),
    'https://ci.xiaohongshu.com/1040g2sg31x?imageView2/format/png',
  );
  t.ok(isWatermarked({ streamDesc: 'WM_X264_MP4_WEB' }));
  t.ok(isWatermarked({ qualityType: 'WM_HD' }));
  t.ok(isWatermarked({ masterUrl: 'http://sns-video-bd.xhscdn.com/stream/WM_X264_MP4/a.mp4' }));
  t.notOk(isWatermarked({ streamDesc: 'X265_MP4_WEB_114', masterUrl: 'http://x/swm_a.mp4' }));
  const h264 = { masterUrl: 'http://a/h264.mp4', streamDesc: 'X264_MP4', height: 1920, width: 1080 };
  t.strictSame(
    pickVideo({
      media: { stream: { h264: [h264], av1: [{ masterUrl: 'http://a/av1.mp4', height: 1280, width: 720 }] } },
    }),
    {
      url: 'http://a/h264.mp4',
      watermarkUrl: null,
    },
    'a clean h264 at 1080p beats av1 at 720p: best quality first',
  );
  t.strictSame(
    pickVideo({
      media: { stream: { h264: [h264], h265: [{ masterUrl: 'http://a/h265.mp4', height: 1920, width: 1080 }] } },
    }).url,
    'http://a/h265.mp4',
    'same quality: h265 before h264',
  );
  t.strictSame(
    pickVideo({ consumer: { originVideoKey: '/pre_post/k1' }, media: { stream: { h264: [h264] } } }).url,
    'https://sns-video-bd.xhscdn.com/pre_post/k1',
    'the original upload first',
  );
});
