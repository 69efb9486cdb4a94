// Douyin link shapes -> aweme id. Short links are resolved with one GET without following redirects: the id
// is in the first Location, and following further only risks landing on an anti-bot page.

import type { Host, PluginOutcome } from '../../../core/sandbox/contract.js';
import { failure } from '../failure.js';
import { hostMatches, parseUrl, queryParam, resolveLocation, type UrlParts } from '../url-lite.js';
import { fetchStep, MOBILE_HEADERS, redirectTarget } from './http.js';

/**
 * Hosts whose links are Douyin posts (short links and long links): the web site, the share pages
 * (iesdouyin, m.douyin), 抖音精选 (jingxuan.douyin.com, `?app=yumme`) and the short-link hosts.
 */
export const DOUYIN_LINK_HOSTS = [
  'v.douyin.com',
  'jx.douyin.com',
  'www.douyin.com',
  'douyin.com',
  'm.douyin.com',
  'jingxuan.douyin.com',
  'www.iesdouyin.com',
  'iesdouyin.com',
] as const;

/** Every host the Douyin code fetches; plugin manifests that use it must allow all of them. */
export const DOUYIN_FETCH_HOSTS = [
  'v.douyin.com',
  'jx.douyin.com',
  'www.iesdouyin.com',
  'aweme.snssdk.com',
  'www.douyin.com',
] as const;

/** Short-link hosts: the app's share links (v.) and 抖音精选's (jx.). Their path is one share code. */
const SHORT_HOSTS: readonly string[] = ['v.douyin.com', 'jx.douyin.com'];

/** Aweme ids are decimal; usually 19 digits, validated loosely as 10-32 like the newer parsers do. */
export const AWEME_ID_RE = /^\d{10,32}$/;

// Where the id sits in a path: the share pages /share/video|note|slides/<id> (iesdouyin, m.douyin), the web
// pages /video|note|slides/<id> (slides = an image or Live Photo post), and 抖音精选's /m/video|note|slides/<id>.
const PATH_ID_RES = [
  /^\/share\/(?:video|note|slides)\/(\d{10,32})(?:\/|$)/,
  /^\/(?:video|note|slides)\/(\d{10,32})(?:\/|$)/,
  /^\/m\/(?:video|note|slides)\/(\d{10,32})(?:\/|$)/,
];
// Feed, search, topic, user and activity pages name the opened post in the query: modal_id (web feed, 精选,
// user pages, activity pages) and vid (older share and search pages).
const QUERY_ID_KEYS = ['modal_id', 'vid'];

export function isDouyinLinkHost(host: string): boolean {
  return hostMatches(host, DOUYIN_LINK_HOSTS);
}

function isXiguaHost(host: string): boolean {
  return host === 'ixigua.com' || host.endsWith('.ixigua.com');
}

/** The aweme id in a long Douyin link (a query id wins: it names the opened post on feed pages), or null. */
export function awemeIdFromParts(parts: UrlParts): string | null {
  for (const key of QUERY_ID_KEYS) {
    const id = queryParam(parts.query, key);
    if (id && AWEME_ID_RE.test(id)) return id;
  }
  for (const re of PATH_ID_RES) {
    const m = re.exec(parts.path);
    if (m) return m[1];
  }
  return null;
}

/**
 * Why a Douyin link cannot name a post (checked before anything is fetched), or null: a short-link host without
 * a share code, a bare site root, or a profile page (/user/<sec_uid>) without a `modal_id`.
 */
export function douyinLinkWithoutPost(parts: UrlParts): string | null {
  if (SHORT_HOSTS.includes(parts.host))
    return /^\/[A-Za-z0-9_-]+\/?$/.test(parts.path) ? null : 'a Douyin short link without its share code';
  if (awemeIdFromParts(parts)) return null;
  if (parts.path === '/' || parts.path === '') return 'the Douyin home page';
  if (/^\/(?:share\/)?user\//.test(parts.path)) return 'a Douyin profile page';
  return null;
}

const XIGUA = failure(
  'UNSUPPORTED',
  'douyin: the link leads to Xigua (ixigua.com), which is not supported',
  '抖音：该链接指向西瓜视频（ixigua.com），暂不支持',
);

/** Turns any Douyin link into an aweme id, resolving v.douyin.com short links over the network. */
export async function resolveAwemeId(url: string, host: Host): Promise<PluginOutcome<string>> {
  const parts = parseUrl(url);
  if (!parts) return failure('INVALID_INPUT', 'douyin: not a valid http(s) link', '抖音：不是有效的 http(s) 链接');
  if (isXiguaHost(parts.host)) return XIGUA;
  if (!isDouyinLinkHost(parts.host)) {
    return failure('UNSUPPORTED', `douyin: ${parts.host} is not a Douyin link`, `抖音：${parts.host} 不是抖音链接`);
  }
  if (!SHORT_HOSTS.includes(parts.host)) return idOrUnsupported(parts);

  if (!/^\/[A-Za-z0-9_-]+\/?$/.test(parts.path)) {
    return failure('INVALID_INPUT', 'douyin: the short link has no share code', '抖音：短链接缺少分享码');
  }
  const got = await fetchStep(host, 'short link', url, { headers: MOBILE_HEADERS, redirect: 'manual' });
  if (!got.ok) {
    return got.timeout
      ? failure('UPSTREAM_TIMEOUT', 'douyin: short link timed out', '抖音：短链接请求超时', got.detail)
      : failure('UPSTREAM_FAILED', 'douyin: short link request failed', '抖音：短链接请求失败', got.detail);
  }
  const location = redirectTarget(got.res);
  if (!location) {
    // A 404 says the share code is unknown; any other answer without a Location is a page we cannot read.
    return got.res.status === 404
      ? failure('NOT_FOUND', 'douyin: the short link does not exist', '抖音：短链接不存在')
      : failure(
          'UPSTREAM_FAILED',
          `douyin: short link answered HTTP ${got.res.status} without a redirect`,
          `抖音：短链接返回 HTTP ${got.res.status}，没有跳转`,
        );
  }
  const target = parseUrl(resolveLocation(location, parts));
  if (!target) {
    return failure(
      'UPSTREAM_FAILED',
      'douyin: short link redirects to an unreadable URL',
      '抖音：短链接跳转到无法识别的地址',
    );
  }
  // Route by where the short link goes, not by its own host: v.douyin.com also serves Xigua videos.
  if (isXiguaHost(target.host)) return XIGUA;
  if (!isDouyinLinkHost(target.host)) {
    return failure(
      'UNSUPPORTED',
      `douyin: the short link leads to ${target.host}, not a Douyin post`,
      `抖音：短链接指向 ${target.host}，不是抖音作品`,
    );
  }
  return idOrUnsupported(target);
}

function idOrUnsupported(parts: UrlParts): PluginOutcome<string> {
  const id = awemeIdFromParts(parts);
  return id
    ? { ok: true, data: id }
    : failure(
        'UNSUPPORTED',
        'douyin: the link is not a Douyin video or image post',
        '抖音：该链接不是抖音视频或图文作品',
      );
}
