// Douyin link shapes -> aweme id. Short links are resolved with one GET without following redirects: the id
// is in the first Location, and following further only risks landing on an anti-bot page.
import type { Host, PluginOutcome } from '../../../core/sandbox/contract.js';
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

const XIGUA = 'douyin: the link leads to Xigua (ixigua.com), which is not supported';

/** Turns any Douyin link into an aweme id, resolving v.douyin.com short links over the network. */
export async function resolveAwemeId(url: string, host: Host): Promise<PluginOutcome<string>> {
  const parts = parseUrl(url);
  if (!parts) return { ok: false, code: 'INVALID_INPUT', message: 'douyin: not a valid http(s) link' };
  if (isXiguaHost(parts.host)) return { ok: false, code: 'UNSUPPORTED', message: XIGUA };
  if (!isDouyinLinkHost(parts.host)) {
    return { ok: false, code: 'UNSUPPORTED', message: `douyin: ${parts.host} is not a Douyin link` };
  }
  if (!SHORT_HOSTS.includes(parts.host)) return idOrUnsupported(parts);

  if (!/^\/[A-Za-z0-9_-]+\/?$/.test(parts.path)) {
    return { ok: false, code: 'INVALID_INPUT', message: 'douyin: the short link has no share code' };
  }
  const got = await fetchStep(host, 'short link', url, { headers: MOBILE_HEADERS, redirect: 'manual' });
  if (!got.ok) {
    return { ok: false, code: got.timeout ? 'UPSTREAM_TIMEOUT' : 'UPSTREAM_FAILED', message: `douyin: ${got.reason}` };
  }
  const location = redirectTarget(got.res);
  if (!location) {
    // A 404 says the share code is unknown; any other answer without a Location is a page we cannot read.
    return got.res.status === 404
      ? { ok: false, code: 'NOT_FOUND', message: 'douyin: the short link does not exist' }
      : {
          ok: false,
          code: 'UPSTREAM_FAILED',
          message: `douyin: short link answered HTTP ${got.res.status} without a redirect`,
        };
  }
  const target = parseUrl(resolveLocation(location, parts));
  if (!target)
    return { ok: false, code: 'UPSTREAM_FAILED', message: 'douyin: short link redirects to an unreadable URL' };
  // Route by where the short link goes, not by its own host: v.douyin.com also serves Xigua videos.
  if (isXiguaHost(target.host)) return { ok: false, code: 'UNSUPPORTED', message: XIGUA };
  if (!isDouyinLinkHost(target.host)) {
    return {
      ok: false,
      code: 'UNSUPPORTED',
      message: `douyin: the short link leads to ${target.host}, not a Douyin post`,
    };
  }
  return idOrUnsupported(target);
}

function idOrUnsupported(parts: UrlParts): PluginOutcome<string> {
  const id = awemeIdFromParts(parts);
  return id
    ? { ok: true, data: id }
    : { ok: false, code: 'UNSUPPORTED', message: 'douyin: the link is not a Douyin video or image post' };
}
