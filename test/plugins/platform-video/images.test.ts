// platform-video: a Douyin image post (图集). slidesinfo answers only on the request_source=200 retry.

import nock from 'nock';
import t from 'tap';
import type { DouyinInfo } from '../../../plugins/_lib/douyin/index.js';
import { plugin } from '../../../plugins/platform-video/handler.js';
import { createDirectHost } from '../../helpers/direct-host.js';
import { fixture, IMAGE_ID, redirects, sharePage, shortLink, slidesinfo } from './douyin-nock.js';

nock.disableNetConnect();
t.afterEach(() => nock.cleanAll());
t.teardown(() => nock.enableNetConnect());

const expected: DouyinInfo = {
  id: IMAGE_ID,
  type: 'images',
  desc: '周末去看海 #海边',
  create_time: '2024-08-01T08:13:20.000Z',
  author: {
    uid: '55555555555',
    sec_uid: 'MS4wLjABAAAAimageAuthorSecUid',
    nickname: '看海的人',
    avatar: 'https://p3.douyinpic.com/aweme/100x100/aweme-avatar/sea.jpeg',
    signature: null,
  },
  statistics: { digg: 321, comment: 12, share: 3, collect: 45, play: 0 },
  video: {
    // An image post's play_addr is not a playable video: no URL, and no request to the play endpoint.
    play_url: null,
    play_url_watermark: null,
    cover: 'https://p3-sign.douyinpic.com/tos-cn-i-0813/imgcover~tplv-dy-resize-origshort-autoq-75:330.jpeg',
    dynamic_cover: null,
    origin_cover: null,
    duration: null,
    width: 1080,
    height: 1440,
    bit_rates: [],
  },
  music: {
    title: '海浪声',
    author: '自然之声',
    // music.play_url is empty here; the background audio sits in video.play_addr.uri.
    url: 'https://sf3-cdn-tos.douyinstatic.com/obj/ies-music/bg-7401.mp3',
    cover: 'https://p3.douyinpic.com/aweme/200x200/sea-music.jpeg',
  },
  images: [
    {
      // The .jpeg variant wins over the .webp listed first.
      url: 'https://p26-sign.douyinpic.com/tos-cn-i-0813/img1~tplv-dy-aweme-images:q75.jpeg?x-expires=1725000000',
      width: 1080,
      height: 1440,
      live_photo_url: null,
    },
    {
      // Only a .webp exists: it is used rather than nothing.
      url: 'https://p3-sign.douyinpic.com/tos-cn-i-0813/img2~tplv-dy-aweme-images:q75.webp?x-expires=1725000000',
      width: 1080,
      height: 1920,
      live_photo_url: 'https://v3-web.douyinvod.com/live-photo/img2.mp4',
    },
  ],
  hashtags: ['海边'],
  share_url: `https://www.iesdouyin.com/share/note/${IMAGE_ID}/`,
};

async function run(input: { url?: string; id?: string }) {
  const host = createDirectHost({ plugin: 'platform-video' });
  try {
    return await plugin.run(input, host);
  } finally {
    host.dispose();
  }
}

t.test('slides short link: empty aweme_details, retry with request_source=200 has the post', async (t) => {
  const scopes = [
    shortLink(redirects.short_link_images),
    slidesinfo(IMAGE_ID, fixture('slidesinfo-empty.json'), fixture('slidesinfo-images.json')),
  ];
  t.strictSame(await run({ url: 'https://v.douyin.com/iRNBho6u/' }), { ok: true, data: expected });
  for (const s of scopes) t.ok(s.isDone());
});

t.test('note link on www.iesdouyin.com', async (t) => {
  slidesinfo(IMAGE_ID, fixture('slidesinfo-images.json'));
  const out = await run({ url: `https://www.iesdouyin.com/share/note/${IMAGE_ID}/?region=CN` });
  t.strictSame(out, { ok: true, data: expected });
});

t.test('image post from the old share page (note_(id)/page route key)', async (t) => {
  slidesinfo(IMAGE_ID, fixture('slidesinfo-empty.json'), fixture('slidesinfo-empty.json'));
  const item = (JSON.parse(fixture('slidesinfo-images.json')) as { aweme_details: unknown[] }).aweme_details[0];
  const router = { loaderData: { 'note_(id)/page': { videoInfoRes: { item_list: [item], filter_list: [] } } } };
  sharePage(IMAGE_ID, `<html><body><script>window._ROUTER_DATA = ${JSON.stringify(router)}</script></body></html>`);
  t.strictSame(await run({ id: IMAGE_ID }), { ok: true, data: expected });
});
