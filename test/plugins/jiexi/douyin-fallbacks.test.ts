// Douyin since 2026-08: the share page no longer embeds videoInfoRes, so slidesinfo comes first. Every way
// through the fallback chain (plugins/_lib/douyin/fetch-item.ts) with its exact outcome, through jiexi.

import nock from 'nock';
import t from 'tap';
import {
  DELETED_ID,
  fixture,
  IMAGE_ID,
  PLAY_CDN_URL,
  play302,
  sharePage,
  slidesinfo,
  VIDEO_ID,
} from '../platform-video/douyin-nock.js';
import { dataOf, runJiexi } from './_helpers.js';

nock.disableNetConnect();
t.afterEach(() => nock.cleanAll());

const LINK = `https://www.douyin.com/video/${VIDEO_ID}`;
const SLIDES = `https://www.iesdouyin.com/web/api/v2/aweme/slidesinfo/?aweme_ids=%5B${VIDEO_ID}%5D`;
const SHARE_PAGE = `https://www.iesdouyin.com/share/video/${VIDEO_ID}`;

/** slidesinfo-video.json with the item edited by `edit`. */
function videoWith(edit: (item: Record<string, unknown>) => void): string {
  const json = JSON.parse(fixture('slidesinfo-video.json')) as { aweme_details: Array<Record<string, unknown>> };
  edit(json.aweme_details[0]);
  return JSON.stringify(json);
}

t.test('1. slidesinfo has the item: one API call, the share page is never fetched', async (t) => {
  slidesinfo(VIDEO_ID, fixture('slidesinfo-video.json'));
  play302();
  const { outcome, fetched } = await runJiexi(LINK);
  t.equal(dataOf(outcome).url, PLAY_CDN_URL);
  t.notOk(fetched.includes(SHARE_PAGE));
});

t.test(
  'empty body from slidesinfo (rejected request) → the share page; an old page that still embeds it answers',
  async (t) => {
    slidesinfo(VIDEO_ID, '');
    sharePage(VIDEO_ID, fixture('share-page-old.html'));
    play302();
    const { outcome, fetched } = await runJiexi(LINK);
    t.equal(dataOf(outcome).url, PLAY_CDN_URL);
    t.strictSame(fetched.slice(0, 2), [SLIDES, SHARE_PAGE]);
  },
);

t.test('empty body from slidesinfo next to the 2026-08 page → UPSTREAM_FAILED with both reasons', async (t) => {
  slidesinfo(VIDEO_ID, '');
  sharePage(VIDEO_ID, fixture('share-page-2026-08.html'));
  t.strictSame((await runJiexi(LINK)).outcome, {
    ok: false,
    code: 'UPSTREAM_FAILED',
    message: 'douyin: slidesinfo returned an empty body; share page has no videoInfoRes (page shape changed)',
    message_zh: `抖音：未能获取作品 ${VIDEO_ID}，请稍后重试`,
  });
});

t.test('status_code 11110 encrypt_data_miss next to an anti-bot page → UPSTREAM_FAILED naming both', async (t) => {
  slidesinfo(VIDEO_ID, fixture('slidesinfo-error.json'));
  sharePage(VIDEO_ID, fixture('share-page-jsvmp.html'));
  t.strictSame((await runJiexi(LINK)).outcome, {
    ok: false,
    code: 'UPSTREAM_FAILED',
    message:
      'douyin: slidesinfo returned status_code 11110 (encrypt_data_miss); share page has no _ROUTER_DATA (anti-bot or captcha page)',
    message_zh: `抖音：未能获取作品 ${VIDEO_ID}，请稍后重试`,
  });
});

t.test('filtered item: slidesinfo names it in filter_list → NOT_FOUND at once, share page not asked', async (t) => {
  const body = JSON.stringify({
    status_code: 0,
    aweme_details: [],
    filter_list: [{ aweme_id: DELETED_ID, filter_reason: 'status_deleted', detail_msg: '作品已删除', notice: '' }],
  });
  slidesinfo(DELETED_ID, body);
  const { outcome, fetched } = await runJiexi(`https://www.douyin.com/video/${DELETED_ID}`);
  t.strictSame(outcome, {
    ok: false,
    code: 'NOT_FOUND',
    message: `douyin: post ${DELETED_ID} is deleted or private (status_deleted: 作品已删除)`,
    message_zh: `抖音：作品 ${DELETED_ID} 已删除或不公开`,
  });
  t.equal(fetched.length, 1);
});

t.test('filtered item: empty twice, the share page filter_list says why → NOT_FOUND with the reason', async (t) => {
  slidesinfo(DELETED_ID, fixture('slidesinfo-empty.json'), fixture('slidesinfo-empty.json'));
  sharePage(DELETED_ID, fixture('share-page-deleted.html'));
  t.match((await runJiexi(`https://www.douyin.com/video/${DELETED_ID}`)).outcome, {
    ok: false,
    code: 'NOT_FOUND',
    message: /status_deleted: 作品已删除/,
  });
});

t.test('item returned but flagged deleted or private in its status block → NOT_FOUND', async (t) => {
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ is_delete: true, allow_share: true, private_status: 0 }, 'status.is_delete'],
    [{ is_delete: false, private_status: 1 }, 'status.private_status 1 (private)'],
    [{ is_delete: false, is_prohibited: true }, 'status.is_prohibited'],
  ];
  for (const [status, reason] of cases) {
    slidesinfo(
      VIDEO_ID,
      videoWith((item) => (item.status = status)),
    );
    t.strictSame((await runJiexi(LINK)).outcome, {
      ok: false,
      code: 'NOT_FOUND',
      message: `douyin: post ${VIDEO_ID} is deleted or private (${reason})`,
      message_zh: `抖音：作品 ${VIDEO_ID} 已删除或不公开`,
    });
  }
  slidesinfo(
    VIDEO_ID,
    videoWith((item) => (item.status = { is_delete: false, private_status: 0, allow_share: true })),
  );
  play302();
  t.equal(dataOf((await runJiexi(LINK)).outcome).url, PLAY_CDN_URL, 'a normal status block is fine');
});

t.test('video item without play_addr → UPSTREAM_FAILED (never a success with url null)', async (t) => {
  slidesinfo(
    VIDEO_ID,
    videoWith((item) => {
      (item.video as Record<string, unknown>).play_addr = { uri: '', url_list: [] };
    }),
  );
  t.strictSame((await runJiexi(LINK)).outcome, {
    ok: false,
    code: 'UPSTREAM_FAILED',
    message: `douyin: post ${VIDEO_ID} has no video.play_addr (response shape changed)`,
    message_zh: `抖音：作品 ${VIDEO_ID} 缺少视频地址（上游返回的数据格式已变化）`,
  });
});

t.test(
  'image post: empty first answer, request_source=200 has it; images without URLs → UPSTREAM_FAILED',
  async (t) => {
    slidesinfo(IMAGE_ID, fixture('slidesinfo-empty.json'), fixture('slidesinfo-images.json'));
    const ok = dataOf((await runJiexi(`https://www.iesdouyin.com/share/slides/${IMAGE_ID}/`)).outcome);
    t.equal(ok.type, 'images');
    t.equal(ok.url, null);
    t.equal(ok.image_items.length, 2);

    const json = JSON.parse(fixture('slidesinfo-images.json')) as {
      aweme_details: Array<{ images: Array<Record<string, unknown>> }>;
    };
    for (const img of json.aweme_details[0].images) img.url_list = [];
    slidesinfo(IMAGE_ID, fixture('slidesinfo-empty.json'), JSON.stringify(json));
    t.strictSame((await runJiexi(`https://www.iesdouyin.com/share/slides/${IMAGE_ID}/`)).outcome, {
      ok: false,
      code: 'UPSTREAM_FAILED',
      message: `douyin: image post ${IMAGE_ID} has no image URLs (response shape changed)`,
      message_zh: `抖音：图文作品 ${IMAGE_ID} 缺少图片地址（上游返回的数据格式已变化）`,
    });
  },
);

t.test('Live Photo: the clip is the clean play address when Douyin hands out playwm', async (t) => {
  const json = JSON.parse(fixture('slidesinfo-images.json')) as {
    aweme_details: Array<{ images: Array<{ video?: { play_addr: { url_list: string[] } } }> }>;
  };
  json.aweme_details[0].images[0].video = {
    play_addr: { url_list: ['https://aweme.snssdk.com/aweme/v1/playwm/?video_id=v0300fg1live&ratio=720p&line=0'] },
  };
  slidesinfo(IMAGE_ID, JSON.stringify(json));
  const data = dataOf((await runJiexi(`https://www.douyin.com/note/${IMAGE_ID}`)).outcome);
  t.strictSame(
    data.image_items.map((i) => i.live_photo_url),
    [
      'https://aweme.snssdk.com/aweme/v1/play/?video_id=v0300fg1live&ratio=720p&line=0',
      'https://v3-web.douyinvod.com/live-photo/img2.mp4',
    ],
  );
});
