// Kuaishou (快手). Protocol (research/video.md §2, as of 2026):
// 1. Short link (v.kuaishou.com/<code>, www.kuaishou.com/f/<code>): GET with an iPhone UA, redirects off.
//    Follow a redirect only when it goes to www.kuaishou.com/short-video/<id> (that page redirects the phone on);
//    any other Location is the H5 page, usually v.m.chenzhongtech.com/fw/photo/<id>.
// 2. /fw/long-video/ is rewritten to /fw/photo/: the long-video page has a different shape.
// 3. GET the H5 page, sending the 302's cookies back (without them some nodes answer 404).
// 4. window.INIT_STATE holds the data under obfuscated top-level keys: take the object with `result` + `photo`.
import type { Host, PluginFailure, PluginOutcome } from '../../../core/sandbox/contract.js';
import { hostMatches, parseUrl, resolveLocation, type UrlParts } from '../../_lib/url-lite.js';
import { HTML_ACCEPT, IPHONE_SAFARI_UA } from '../../_lib/user-agents.js';
import { parseStateScript } from '../../_lib/state-script.js';
import { arr, at, idStr, isRecord, num, rec, str, type JsonRecord } from '../../_lib/pick.js';
import type { JiexiData, PlatformModule } from '../platform.js';
import { cookieHeader, fail, fetchStep, header, isRedirect, type Step } from '../upstream.js';

const PAGE_HOSTS = ['v.m.chenzhongtech.com', '*.m.chenzhongtech.com', 'm.gifshow.com'];
const LINK_HOSTS = ['v.kuaishou.com', 'www.kuaishou.com', ...PAGE_HOSTS];
const H5_PAGE = /^\/fw\/(?:photo|long-video)\/[A-Za-z0-9_-]+/;
const SHORT_VIDEO = /^\/short-video\/[A-Za-z0-9_-]+/;
const MAX_HOPS = 4;

const headers = { 'User-Agent': IPHONE_SAFARI_UA, Accept: HTML_ACCEPT, Referer: 'https://v.kuaishou.com/' };

interface PageTarget {
  url: string;
  cookie: string | null;
}

/** Steps 1-2: from the pasted link to the H5 photo page URL (plus cookies the redirects set). */
async function resolvePage(start: UrlParts, host: Host): Promise<Step<PageTarget>> {
  let parts = start;
  const cookies: string[] = [];
  for (let hop = 0; hop < MAX_HOPS; hop++) {
    if (hostMatches(parts.host, PAGE_HOSTS)) {
      if (!H5_PAGE.test(parts.path)) return fail('UNSUPPORTED', 'Not a Kuaishou video link.');
      const path = parts.path.replace(/^\/fw\/long-video\//, '/fw/photo/');
      const url = `https://${parts.host}${path}${parts.query ? `?${parts.query}` : ''}`;
      return { ok: true, value: { url, cookie: cookieHeader(cookies) } };
    }
    // v.kuaishou.com/<code>, www.kuaishou.com/f/<code> or the desktop /short-video/<id> (redirects phones on).
    const isShort = parts.host === 'v.kuaishou.com' || /^\/f\/[A-Za-z0-9_-]+/.test(parts.path) || SHORT_VIDEO.test(parts.path);
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
    parts = next;
  }
  return fail('UPSTREAM_FAILED', 'Kuaishou short link: too many redirects.');
}

/** The object among INIT_STATE's (obfuscated) values that carries `result` (and, when OK, `photo`). */
export function findPhotoState(state: unknown): JsonRecord | null {
  let withResult: JsonRecord | null = null;
  const queue: Array<{ v: unknown; depth: number }> = [{ v: state, depth: 0 }];
  while (queue.length) {
    const { v, depth } = queue.shift() as { v: unknown; depth: number };
    if (!isRecord(v)) continue;
    if ('result' in v && 'photo' in v) return v;
    if (withResult === null && typeof v.result === 'number') withResult = v;
    if (depth < 3) for (const child of Object.values(v)) queue.push({ v: child, depth: depth + 1 });
  }
  return withResult;
}

/** Maps a non-1 `result` code. Codes from research/video.md §2 (2001/50/2 anti-bot, 223 not found). */
function resultFailure(result: unknown, message: string | null): PluginFailure {
  const detail = message ? ` (${message})` : '';
  if (result === 223) return fail('NOT_FOUND', `Kuaishou: the video does not exist or was deleted (result 223)${detail}.`);
  if (result === 2001) return fail('UPSTREAM_FAILED', `Kuaishou share page: captcha required, IP rate-limited (result 2001)${detail}.`);
  if (result === 50) return fail('UPSTREAM_FAILED', `Kuaishou share page: signature check failed (result 50)${detail}.`);
  if (result === 2) return fail('UPSTREAM_FAILED', `Kuaishou share page: refused (result 2, desktop page served)${detail}.`);
  return fail('UPSTREAM_FAILED', `Kuaishou share page: result ${String(result)}${detail}.`);
}

export function photoToData(photo: JsonRecord, fallbackId: string): JiexiData {
  const atlas = rec(at(photo, 'ext_params', 'atlas'));
  const cdn = str(at(atlas, 'cdn', 0));
  const paths = cdn ? arr(at(atlas, 'list')).map(str).filter((p): p is string => p !== null) : [];
  const images = paths.map((p) => `https://${cdn}${p.startsWith('/') ? '' : '/'}${p}`);
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
    music: music ? { title: music, author: null, url: null } : null,
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
  if (!state.ok) return fail('UPSTREAM_FAILED', `Kuaishou share page: ${state.detail} (verification page or changed layout).`);
  const found = findPhotoState(state.value);
  if (!found) return fail('UPSTREAM_FAILED', 'Kuaishou share page: INIT_STATE has no object with result/photo (changed shape).');
  if (found.result !== 1) return resultFailure(found.result, str(found.error_msg));
  const photo = rec(found.photo);
  if (!photo) return fail('NOT_FOUND', 'Kuaishou: the video does not exist or was deleted.');
  const pathId = /\/fw\/photo\/([A-Za-z0-9_-]+)/.exec(target.value.url)?.[1] ?? '';
  const data = photoToData(photo, pathId);
  if (data.type === 'video' && !data.url) return fail('UPSTREAM_FAILED', 'Kuaishou share page: photo has neither mainMvUrls nor atlas images (changed shape).');
  return { ok: true, data };
}

export const kuaishou: PlatformModule = {
  id: 'kuaishou',
  label: '快手',
  linkHosts: LINK_HOSTS,
  fetchHosts: LINK_HOSTS,
  parse,
};
