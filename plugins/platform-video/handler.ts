// platform-video: one Douyin post in full (the Douyin core lives in plugins/_lib/douyin, shared with jiexi).
// Input comes from /api/douyin, /api/parse?url= or /api/video/:id (the route's :id joins the input).

import type { Host, OperationPlugin, PluginOutcome } from '../../core/sandbox/contract.js';
import {
  AWEME_ID_RE,
  type DouyinInfo,
  douyinInfoById,
  douyinInfoByUrl,
  isDouyinLinkHost,
} from '../_lib/douyin/index.js';
import { failure } from '../_lib/failure.js';
import { extractUrls, parseUrl } from '../_lib/url-lite.js';

export interface In {
  /** A Douyin link or a whole pasted share text containing one. */
  url?: string;
  /** A numeric aweme id. */
  id?: string;
}

export type Out = DouyinInfo;

type LinkPick = { ok: true; link: string } | ReturnType<typeof failure<'INVALID_INPUT' | 'UNSUPPORTED'>>;

/** The first Douyin link in a share text; links of other sites before it are skipped, never fetched. */
export function pickDouyinLink(text: string): LinkPick {
  const urls = extractUrls(text);
  if (urls.length === 0) return failure('INVALID_INPUT', 'url contains no http(s) link', 'url 中没有 http(s) 链接');
  const hosts = urls.map((u) => parseUrl(u)?.host ?? '');
  const i = hosts.findIndex(isDouyinLinkHost);
  if (i >= 0) {
    // Rebuilt from its parts: a user-supplied port (v.douyin.com:8443), and the fragment, are dropped, so the
    // gateway only ever contacts the platform on its default port.
    const p = parseUrl(urls[i]);
    if (p) return { ok: true, link: `${p.scheme}://${p.host}${p.path}${p.query ? `?${p.query}` : ''}` };
  }
  if (hosts.some((h) => h === 'ixigua.com' || h.endsWith('.ixigua.com'))) {
    return failure('UNSUPPORTED', 'Xigua (ixigua.com) links are not supported', '不支持西瓜视频（ixigua.com）链接');
  }
  return failure(
    'UNSUPPORTED',
    `only Douyin links are supported, not ${hosts[0]}`,
    `只支持抖音链接，不支持 ${hosts[0]} 的链接`,
  );
}

async function run(input: In, host: Host): Promise<PluginOutcome<Out>> {
  const id = typeof input.id === 'string' ? input.id.trim() : '';
  const url = typeof input.url === 'string' ? input.url.trim() : '';
  if (id && url) return failure('INVALID_INPUT', 'give either url or id, not both', 'url 和 id 只能传其中一个');
  if (id) {
    if (!AWEME_ID_RE.test(id)) {
      return failure(
        'INVALID_INPUT',
        'id must be a numeric Douyin aweme id (10-32 digits)',
        'id 必须是抖音作品 ID（aweme id），10 至 32 位数字',
      );
    }
    return douyinInfoById(id, host);
  }
  if (!url) {
    return failure(
      'INVALID_INPUT',
      'give url (a Douyin link or share text) or id',
      '请传 url（抖音链接或分享文本）或 id',
    );
  }
  const picked = pickDouyinLink(url);
  if (!picked.ok) return picked;
  return douyinInfoByUrl(picked.link, host);
}

export const plugin: OperationPlugin<In, Out> = { run };
