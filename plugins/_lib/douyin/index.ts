// Douyin, end to end: a link or an aweme id -> the full post description. Shared by the platform-video
// plugin (full info) and jiexi's Douyin module (normalised subset).
import type { Host, PluginOutcome } from '../../../core/sandbox/contract.js';
import { fetchAweme } from './fetch-item.js';
import { type DouyinInfo, toDouyinInfo } from './info.js';
import { resolveAwemeId } from './links.js';

export type { DouyinBitRate, DouyinImage, DouyinInfo, DouyinVideo } from './info.js';
export {
  AWEME_ID_RE,
  DOUYIN_FETCH_HOSTS,
  DOUYIN_LINK_HOSTS,
  douyinLinkWithoutPost,
  isDouyinLinkHost,
  resolveAwemeId,
} from './links.js';

export async function douyinInfoById(id: string, host: Host): Promise<PluginOutcome<DouyinInfo>> {
  const item = await fetchAweme(id, host);
  if (!item.ok) return item;
  const info = await toDouyinInfo(id, item.data, host);
  // An answer without media is not an answer: a struct that lost its play_addr / images is a shape change.
  if (info.type === 'video' && !info.video.play_url) {
    return {
      ok: false,
      code: 'UPSTREAM_FAILED',
      message: `douyin: post ${id} has no video.play_addr (response shape changed)`,
      message_zh: `抖音：作品 ${id} 缺少视频地址（上游返回的数据格式已变化）`,
    };
  }
  if (info.type === 'images' && !info.images.some((i) => i.url)) {
    return {
      ok: false,
      code: 'UPSTREAM_FAILED',
      message: `douyin: image post ${id} has no image URLs (response shape changed)`,
      message_zh: `抖音：图文作品 ${id} 缺少图片地址（上游返回的数据格式已变化）`,
    };
  }
  return { ok: true, data: info };
}

export async function douyinInfoByUrl(url: string, host: Host): Promise<PluginOutcome<DouyinInfo>> {
  const id = await resolveAwemeId(url, host);
  if (!id.ok) return id;
  return douyinInfoById(id.data, host);
}
