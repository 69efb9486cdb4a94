// Kuaishou (快手). Protocol (research/video.md §2, as of 2026):
// 1. Short link (v.kuaishou.com/<code>, www.kuaishou.com/f/<code>): GET with an iPhone UA, redirects off.
//    Follow a redirect only when it goes to www.kuaishou.com/short-video/<id> (that page redirects the phone on);
//    any other Location is the H5 page, usually v.m.chenzhongtech.com/fw/photo/<id>.
// 2. /fw/long-video/ is rewritten to /fw/photo/: the long-video page has a different shape.
// 3. GET the H5 page, sending the 302's cookies back (without them some nodes answer 404).
// 4. window.INIT_STATE holds the data under obfuscated top-level keys: take the object with `result` + `photo`.
import type { Host, PluginFailure, PluginOutcome } from '../../../core/sandbox/contract.js';
import { arr, at, idStr, isRecord, type JsonRecord, num, rec, str } from '../../_lib/pick.js';
import { parseStateScript } from '../../_lib/state-script.js';
import { hostMatches, parseUrl, resolveLocation, type UrlParts } from '../../_lib/url-lite.js';
import { HTML_ACCEPT, IPHONE_SAFARI_UA } from '../../_lib/user-agents.js';
import type { JiexiData, PlatformModule } from '../platform.js';
import { cookieHeader, fail, fetchStep, header, isRedirect, type Step } from '../upstream.js';

// m.kuaishou.com/fw/photo/<id> is where 2026 short links land as well as the chenzhongtech H5 hosts.
const PAGE_HOSTS = ['v.m.chenzhongtech.com', '*.m.chenzhongtech.com', 'm.gifshow.com', 'm.kuaishou.com'];
const LINK_HOSTS = ['v.kuaishou.com', 'www.kuaishou.com', ...PAGE_HOSTS];
const H5_PAGE = /^\/fw\/(?:photo|long-video|video)\/[A-Za-z0-9_-]+/;
const SHORT_VIDEO = /^\/short-video\/[A-Za-z0-9_-]+/;
const MAX_HOPS = 4;

const headers = { 'User-Agent': IPHONE_SAFARI_UA, Accept: HTML_ACCEPT, Referer: 'https://v.kuaishou.com/' };

interface PageTarget {
  url: string;
  cookie: string | null;
}

function isCaptchaTarget(parts: UrlParts): boolean {
  return /(?:^|\.)captcha\./.test(parts.host) || /captcha/i.test(parts.path);
}

/** Steps 1-2: from the pasted link to the H5 photo page URL (plus cookies the redirects set). */
async function resolvePage(start: UrlParts, host: Host): Promise<Step<PageTarget>> {
  let parts = start;
  const cookies: string[] = [];
  for (let hop = 0; hop < MAX_HOPS; hop++) {
    if (hostMatches(parts.host, PAGE_HOSTS)) {
      if (!H5_PAGE.test(parts.path)) return fail('UNSUPPORTED', 'Not a Kuaishou video link.');
      // The long-video (and /fw/video/) pages have another shape; the photo page serves the same id.
      const path = parts.path.replace(/^\/fw\/(?:long-video|video)\//, '/fw/photo/');
      const url = `https://${parts.host}${path}${parts.query ? `?${parts.query}` : ''}`;
      return { ok: true, value: { url, cookie: cookieHeader(cookies) } };
    }
    // v.kuaishou.com/<code>, www.kuaishou.com/f/<code> or the desktop /short-video/<id> (redirects phones on).
    const isShort =
      parts.host === 'v.kuaishou.com' || /^\/f\/[A-Za-z0-9_-]+/.test(parts.path) || SHORT_VIDEO.test(parts.path);
    if (!hostMatches(parts.host, LINK_HOSTS) || !isShort) return fail('UNSUPPORTED', 'Not a Kuaishou video link.');
    const url = `https://${parts.host}${parts.path}${parts.query ? `?${parts.query}` : ''}`;
    const got = await fetchStep(host, 'Kuaishou short link', url, { headers, redirect: 'manual' });
    if (!got.ok) return got;
    const res = got.value;
    cookies.push(...res.set_cookies);
    const location = header(res, 'location');
    if (!isRedirect(res.status) || !location) {
      if (res.status === 404) return fail('NOT_FOUND', 'Kuaishou short link does not exist (HTTP 404).');
      return fail('UPSTREAM_FAILED', `Kuaishou short link: expected a redirect, got HTTP ${res.status}.`);
    }
    const next = parseUrl(resolveLocation(location, parts));
    if (!next) return fail('UPSTREAM_FAILED', 'Kuaishou short link: redirect target is not a URL.');
    // A throttled IP is sent to the captcha site (captcha.zt.kuaishou.com) instead of the video: that is a
    // refusal to retry later, not a link to something else.
    if (isCaptchaTarget(next))
      return fail(
        'UPSTREAM_FAILED',
        `Kuaishou short link: redirected to a captcha page (${next.host}); IP rate-limited, retry later.`,
      );
    parts = next;
  }
  return fail('UPSTREAM_FAILED', 'Kuaishou short link: too many redirects.');
}

/** Does this state object carry media: a main video URL or atlas (image post) entries? */
function hasMedia(found: JsonRecord): boolean {
  return arr(at(found, 'photo', 'mainMvUrls')).length > 0 || arr(at(atlasOf(found), 'list')).length > 0;
}

/**
 * The object among INIT_STATE's (obfuscated) values that answers for the photo. The state holds several objects
 * with a `result` (the photo fetch, share info, tracking/recommendation lists), and more than one may carry a
 * `photo` stub; the one to read is the one whose photo has media. Failing that, an error result (captcha, gone)
 * explains why there is none; then a result-1 object whose photo is null (deleted); then a photo stub without
 * media (a shape we do not know); null = no result object at all.
 */
export function findPhotoState(state: unknown): JsonRecord | null {
  const withResult: JsonRecord[] = [];
  const queue: Array<{ v: unknown; depth: number }> = [{ v: state, depth: 0 }];
  while (queue.length) {
    const { v, depth } = queue.shift() as { v: unknown; depth: number };
    if (!isRecord(v)) continue;
    if (typeof v.result === 'number') withResult.push(v);
    if (depth < 4) for (const child of Object.values(v)) queue.push({ v: child, depth: depth + 1 });
  }
  return (
    withResult.find((o) => o.result === 1 && isRecord(o.photo) && hasMedia(o)) ??
    withResult.find((o) => o.result !== 1) ??
    withResult.find((o) => 'photo' in o && !isRecord(o.photo)) ??
    withResult.find((o) => 'photo' in o) ??
    withResult[0] ??
    null
  );
}

/** Maps a non-1 `result` code. Codes from research/video.md §2 (2001/50/2 anti-bot, 223 not found). */
function resultFailure(result: unknown, message: string | null): PluginFailure {
  const detail = message ? ` (${message})` : '';
  if (result === 223)
    return fail('NOT_FOUND', `Kuaishou: the video does not exist or was deleted (result 223)${detail}.`);
  if (result === 2001)
    return fail('UPSTREAM_FAILED', `Kuaishou share page: captcha required, IP rate-limited (result 2001)${detail}.`);
  if (result === 50)
    return fail('UPSTREAM_FAILED', `Kuaishou share page: signature check failed (result 50)${detail}.`);
  if (result === 2)
    return fail('UPSTREAM_FAILED', `Kuaishou share page: refused (result 2, desktop page served)${detail}.`);
  return fail('UPSTREAM_FAILED', `Kuaishou share page: result ${String(result)}${detail}.`);
}

/**
 * The atlas (image post) of a state object. Pages put it in three places: photo.ext_params.atlas (research
 * notes), photo.atlas, or beside photo in the same object (the 2026 H5 page). The CDN host is cdn[0] (a string)
 * or cdnList[0].cdn.
 */
function atlasOf(found: JsonRecord): JsonRecord | null {
  return rec(at(found, 'photo', 'ext_params', 'atlas')) ?? rec(at(found, 'photo', 'atlas')) ?? rec(found.atlas);
}

function atlasHost(atlas: unknown, listKey: 'cdnList' | 'musicCdnList' = 'cdnList'): string | null {
  return str(at(atlas, listKey, 0, 'cdn')) ?? str(at(atlas, listKey, 0)) ?? str(at(atlas, 'cdn', 0));
}

function onHost(cdn: string, path: string): string {
  return /^https?:\/\//.test(path) ? path : `https://${cdn}${path.startsWith('/') ? '' : '/'}${path}`;
}

/** Maps the state object that answers for the photo (see findPhotoState). */
export function photoToData(found: JsonRecord, fallbackId: string): JiexiData {
  const photo = rec(found.photo) ?? {};
  const atlas = atlasOf(found);
  const cdn = atlasHost(atlas);
  const paths = cdn
    ? arr(at(atlas, 'list'))
        .map(str)
        .filter((p): p is string => p !== null)
    : [];
  const images = cdn ? paths.map((p) => onHost(cdn, p)) : [];
  // atlas.size[i] = {w, h} when the page lists it.
  const sizes = arr(at(atlas, 'size'));
  const items = images.map((url, i) => ({
    url,
    live_photo_url: null,
    width: num(at(sizes[i], 'w')),
    height: num(at(sizes[i], 'h')),
  }));
  // An image post's background music is atlas.music on the music CDN (or the image CDN).
  const atlasMusic = str(at(atlas, 'music'));
  const musicHost = atlasHost(atlas, 'musicCdnList') ?? cdn;
  const musicUrl = images.length && atlasMusic && musicHost ? onHost(musicHost, atlasMusic) : null;
  const durationMs = num(photo.duration);
  const music = str(at(photo, 'soundTrack', 'name'));
  return {
    platform: 'kuaishou',
    id: idStr(photo.photoId) ?? fallbackId,
    type: images.length ? 'images' : 'video',
    title: str(photo.caption) ?? '',
    cover: str(at(photo, 'coverUrls', 0, 'url')),
    // mainMvUrls[0] is the watermark-free file as served; image posts have no playable video.
    url: images.length ? null : str(at(photo, 'mainMvUrls', 0, 'url')),
    images,
    author: { id: idStr(photo.userId), name: str(photo.userName), avatar: str(photo.headUrl) },
    duration: durationMs !== null && durationMs > 0 ? Math.round(durationMs / 1000) : null,
    music: music || musicUrl ? { title: music, author: null, url: musicUrl } : null,
    image_items: items,
    // mainMvUrls is the file Kuaishou serves its own player: no watermark is burnt in (research/video.md §2).
    watermark: false,
    watermark_url: null,
    note: null,
  };
}

async function parse(url: string, host: Host): Promise<PluginOutcome<JiexiData>> {
  const start = parseUrl(url);
  if (!start) return fail('UNSUPPORTED', 'Not a Kuaishou video link.');
  const target = await resolvePage(start, host);
  if (!target.ok) return target;
  const pageHeaders: Record<string, string> = { ...headers };
  if (target.value.cookie) pageHeaders.Cookie = target.value.cookie;
  const got = await fetchStep(host, 'Kuaishou share page', target.value.url, { headers: pageHeaders });
  if (!got.ok) return got;
  const page = got.value;
  if (page.status === 404) return fail('NOT_FOUND', 'Kuaishou: the video page does not exist (HTTP 404).');
  if (page.status !== 200) return fail('UPSTREAM_FAILED', `Kuaishou share page: HTTP ${page.status}.`);
  if (page.body.trim() === '') return fail('UPSTREAM_FAILED', 'Kuaishou share page: empty body.');
  const state = parseStateScript(page.body, 'INIT_STATE');
  if (!state.ok)
    return fail('UPSTREAM_FAILED', `Kuaishou share page: ${state.detail} (verification page or changed layout).`);
  const found = findPhotoState(state.value);
  if (!found)
    return fail('UPSTREAM_FAILED', 'Kuaishou share page: INIT_STATE has no object with result/photo (changed shape).');
  if (found.result !== 1) return resultFailure(found.result, str(found.error_msg));
  if (!rec(found.photo)) return fail('NOT_FOUND', 'Kuaishou: the video does not exist or was deleted.');
  const pathId = /\/fw\/photo\/([A-Za-z0-9_-]+)/.exec(target.value.url)?.[1] ?? '';
  const data = photoToData(found, pathId);
  if (data.type === 'video' && !data.url)
    return fail(
      'UPSTREAM_FAILED',
      'Kuaishou share page: photo has neither mainMvUrls nor atlas images (changed shape).',
    );
  return { ok: true, data };
}

export const kuaishou: PlatformModule = {
  id: 'kuaishou',
  label: '快手',
  linkHosts: LINK_HOSTS,
  fetchHosts: LINK_HOSTS,
  parse,
};
