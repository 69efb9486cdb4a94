// Douyin, end to end: a link or an aweme id -> the full post description. Shared by the platform-video
// plugin (full info) and jiexi's Douyin module (normalised subset).
import type { Host, PluginOutcome } from '../../../core/sandbox/contract.js';
import { fetchAweme } from './fetch-item.js';
import { toDouyinInfo, type DouyinInfo } from './info.js';
import { resolveAwemeId } from './links.js';

export type { DouyinInfo, DouyinVideo, DouyinImage, DouyinBitRate } from './info.js';
export { AWEME_ID_RE, DOUYIN_FETCH_HOSTS, DOUYIN_LINK_HOSTS, isDouyinLinkHost, resolveAwemeId } from './links.js';

export async function douyinInfoById(id: string, host: Host): Promise<PluginOutcome<DouyinInfo>> {
  const item = await fetchAweme(id, host);
  if (!item.ok) return item;
  return { ok: true, data: await toDouyinInfo(id, item.data, host) };
}

export async function douyinInfoByUrl(url: string, host: Host): Promise<PluginOutcome<DouyinInfo>> {
  const id = await resolveAwemeId(url, host);
  if (!id.ok) return id;
  return douyinInfoById(id.data, host);
}
