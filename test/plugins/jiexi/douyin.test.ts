// jiexi's Douyin module: the shared Douyin core narrowed to JiexiData, through the jiexi handler and manifest.
// Douyin fixtures live with platform-video (test/plugins/platform-video/fixtures), which owns the Douyin core.

import { readFileSync } from 'node:fs';
import nock from 'nock';
import t from 'tap';
import type { PluginManifest } from '../../../core/sandbox/contract.js';
import type { JiexiData } from '../../../plugins/jiexi/platform.js';
import { douyin } from '../../../plugins/jiexi/platforms/douyin.js';
import {
  DELETED_ID,
  fixture,
  IMAGE_ID,
  PLAY_CDN_URL,
  play302,
  redirects,
  sharePage,
  shortLink,
  slidesinfo,
  VIDEO_ID,
} from '../platform-video/douyin-nock.js';
import { runJiexi } from './_helpers.js';

nock.disableNetConnect();
t.afterEach(() => nock.cleanAll());
t.teardown(() => nock.enableNetConnect());

const SHARE_TEXT =
  '7.87 Pjm:/ 复制打开抖音，看看【作者的作品】春天的第一场雨… https://v.douyin.com/7PK95qKezLc/ Kjp:/ 03/01 W@m.Qk';

t.test('video share text -> JiexiData, every field exact', async (t) => {
  shortLink(redirects.short_link_video);
  slidesinfo(VIDEO_ID, fixture('slidesinfo-video.json'));
  play302();
  const { outcome, fetched } = await runJiexi(SHARE_TEXT);
  const expected: JiexiData = {
    platform: 'douyin',
    id: VIDEO_ID,
    type: 'video',
    title: '春天的第一场雨 #春天 #vlog #春天',
    cover: 'https://p3-sign.douyinpic.com/tos-cn-p-0015/cover01~c5_300x400.jpeg?x-expires=1711209600',
    url: PLAY_CDN_URL,
    images: [],
    author: {
      id: 'MS4wLjABAAAAxyzSecUid_Example-01',
      name: '作者的作品',
      avatar: 'https://p3.douyinpic.com/aweme/1080x1080/aweme-avatar/abc.jpeg?from=327834062',
    },
    duration: 15.233,
    music: {
      title: '@作者的作品创作的原声',
      author: '作者的作品',
      url: 'https://sf3-cdn-tos.douyinstatic.com/obj/ies-music/7345493067782163211.mp3',
    },
    image_items: [],
    watermark: false,
    watermark_url: null,
    note: null,
  };
  t.strictSame(outcome, { ok: true, data: expected });
  t.strictSame(fetched, [
    'https://v.douyin.com/7PK95qKezLc/',
    `https://www.iesdouyin.com/web/api/v2/aweme/slidesinfo/?aweme_ids=%5B${VIDEO_ID}%5D`,
    'https://aweme.snssdk.com/aweme/v1/play/?video_id=v0200fg10000cnl1n9jc77u0abcdefg&ratio=720p&line=0',
  ]);
});

t.test('image post with a Live Photo (slidesinfo needs request_source=200) -> images + clip, url null', async (t) => {
  shortLink(redirects.short_link_images);
  slidesinfo(IMAGE_ID, fixture('slidesinfo-empty.json'), fixture('slidesinfo-images.json'));
  const { outcome } = await runJiexi('https://v.douyin.com/iRNBho6u/');
  const expected: JiexiData = {
    platform: 'douyin',
    id: IMAGE_ID,
    type: 'images',
    title: '周末去看海 #海边',
    cover: 'https://p3-sign.douyinpic.com/tos-cn-i-0813/imgcover~tplv-dy-resize-origshort-autoq-75:330.jpeg',
    url: null,
    images: [
      'https://p26-sign.douyinpic.com/tos-cn-i-0813/img1~tplv-dy-aweme-images:q75.jpeg?x-expires=1725000000',
      'https://p3-sign.douyinpic.com/tos-cn-i-0813/img2~tplv-dy-aweme-images:q75.webp?x-expires=1725000000',
    ],
    author: {
      id: 'MS4wLjABAAAAimageAuthorSecUid',
      name: '看海的人',
      avatar: 'https://p3.douyinpic.com/aweme/100x100/aweme-avatar/sea.jpeg',
    },
    duration: null,
    music: {
      title: '海浪声',
      author: '自然之声',
      url: 'https://sf3-cdn-tos.douyinstatic.com/obj/ies-music/bg-7401.mp3',
    },
    image_items: [
      {
        url: 'https://p26-sign.douyinpic.com/tos-cn-i-0813/img1~tplv-dy-aweme-images:q75.jpeg?x-expires=1725000000',
        live_photo_url: null,
        width: 1080,
        height: 1440,
      },
      {
        url: 'https://p3-sign.douyinpic.com/tos-cn-i-0813/img2~tplv-dy-aweme-images:q75.webp?x-expires=1725000000',
        live_photo_url: 'https://v3-web.douyinvod.com/live-photo/img2.mp4',
        width: 1080,
        height: 1920,
      },
    ],
    watermark: false,
    watermark_url: null,
    note: null,
  };
  t.strictSame(outcome, { ok: true, data: expected });
});

t.test('failures keep their codes through jiexi', async (t) => {
  slidesinfo(DELETED_ID, fixture('slidesinfo-empty.json'), fixture('slidesinfo-empty.json'));
  sharePage(DELETED_ID, fixture('share-page-deleted.html'));
  const gone = await runJiexi(`https://www.douyin.com/video/${DELETED_ID}`);
  t.strictSame(gone.outcome, {
    ok: false,
    code: 'NOT_FOUND',
    message: `douyin: post ${DELETED_ID} is deleted or private (status_deleted: 作品已删除)`,
    message_zh: `抖音：作品 ${DELETED_ID} 已删除或不公开`,
  });

  slidesinfo(VIDEO_ID, '');
  sharePage(VIDEO_ID, fixture('share-page-2026-08.html'));
  const changed = await runJiexi(`https://www.iesdouyin.com/share/video/${VIDEO_ID}/`);
  t.strictSame(changed.outcome, {
    ok: false,
    code: 'UPSTREAM_FAILED',
    message: 'douyin: slidesinfo returned an empty body; share page has no videoInfoRes (page shape changed)',
    message_zh: `抖音：未能获取作品 ${VIDEO_ID}，请稍后重试`,
  });

  shortLink(redirects.short_link_xigua);
  const xigua = await runJiexi('https://v.douyin.com/XgVd8kR2/');
  t.equal(xigua.outcome.ok === false && xigua.outcome.code, 'UNSUPPORTED');
});

t.test('module hosts: every fetch host is allowed by the jiexi manifest', async (t) => {
  const manifest = JSON.parse(readFileSync('plugins/jiexi/plugin.json', 'utf8')) as PluginManifest;
  for (const h of douyin.fetchHosts) t.ok(manifest.allow_hosts.includes(h), `${h} in jiexi allow_hosts`);
  t.strictSame(douyin.linkHosts, [
    'v.douyin.com',
    'jx.douyin.com',
    'www.douyin.com',
    'douyin.com',
    'm.douyin.com',
    'jingxuan.douyin.com',
    'www.iesdouyin.com',
    'iesdouyin.com',
  ]);
  t.equal(douyin.label, '抖音');
});
