// jiexi's Douyin module: the shared Douyin core (plugins/_lib/douyin) narrowed to JiexiData.
import type { Host, PluginOutcome } from '../../../core/sandbox/contract.js';
import {
  DOUYIN_FETCH_HOSTS,
  DOUYIN_LINK_HOSTS,
  type DouyinInfo,
  douyinInfoByUrl,
  douyinLinkWithoutPost,
} from '../../_lib/douyin/index.js';
import type { JiexiData, PlatformModule } from '../platform.js';

export function toJiexiData(info: DouyinInfo): JiexiData {
  const items = info.images.flatMap((i) =>
    i.url ? [{ url: i.url, live_photo_url: i.live_photo_url, width: i.width, height: i.height }] : [],
  );
  const images = items.map((i) => i.url);
  return {
    platform: 'douyin',
    id: info.id,
    type: info.type,
    title: info.desc,
    // Image posts usually still carry a video cover; the first image is the fallback.
    cover: info.video.cover ?? info.video.origin_cover ?? images[0] ?? null,
    url: info.video.play_url,
    images,
    // sec_uid is what Douyin's own profile URLs use; uid is the fallback for items that lack it.
    author: { id: info.author.sec_uid ?? info.author.uid, name: info.author.nickname, avatar: info.author.avatar },
    duration: info.type === 'video' ? info.video.duration : null,
    music: info.music ? { title: info.music.title, author: info.music.author, url: info.music.url } : null,
    image_items: items,
    // play_url is the "play" (not "playwm") address or the CDN file it redirects to: never watermarked.
    watermark: false,
    watermark_url: null,
    note: null,
  };
}

export const douyin: PlatformModule = {
  id: 'douyin',
  label: '抖音',
  linkHosts: [...DOUYIN_LINK_HOSTS],
  fetchHosts: [...DOUYIN_FETCH_HOSTS],
  refuseLink: douyinLinkWithoutPost,
  async parse(url: string, host: Host): Promise<PluginOutcome<JiexiData>> {
    const info = await douyinInfoByUrl(url, host);
    return info.ok ? { ok: true, data: toJiexiData(info.data) } : info;
  },
};
