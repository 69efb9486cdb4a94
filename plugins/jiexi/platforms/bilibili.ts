// Bilibili (哔哩哔哩). Protocol (as of 2026):
// 1. b23.tv/<code> or bili2233.cn/<code>: GET with redirects OFF and read Location (following into
//    www.bilibili.com draws 412 risk control), recursing while it points at a short host again. A target that
//    names no video (live room, shop, user space) is not a video. www/m.bilibili.com/video/BV… links, and theme,
//    festival and list pages that carry the video as ?bvid=BV… (or ?aid=), are used directly; nothing fetches
//    www.
// 2. api.bilibili.com/x/web-interface/view?bvid= → code 0, title/cover/owner/pages[].cid.
// 3. api.bilibili.com/x/player/playurl?…&platform=html5 → data.durl[0].url, a progressive mp4 (Bilibili has no
//    watermark; this is the plain file, quality capped for anonymous callers).
// All requests: desktop Chrome UA + Referer https://www.bilibili.com/.
import type { Host, HostFetchResponse, PluginOutcome } from '../../../core/sandbox/contract.js';
import { arr, at, idStr, type JsonRecord, num, parseJson, rec, str } from '../../_lib/pick.js';
import { parseUrl, queryParam, resolveLocation, type UrlParts } from '../../_lib/url-lite.js';
import { DESKTOP_CHROME_UA, JSON_ACCEPT } from '../../_lib/user-agents.js';
import { type JiexiData, noExtras, type PlatformModule } from '../platform.js';
import { fail, fetchStep, header, isRedirect, type Step, type StepName } from '../upstream.js';

const API = 'https://api.bilibili.com';
const headers = { 'User-Agent': DESKTOP_CHROME_UA, Referer: 'https://www.bilibili.com/', Accept: JSON_ACCEPT };
const BV = '(BV1[1-9A-HJ-NP-Za-km-z]{9})';
// /video/BV…, /s/video/BV… (share), and the bare /BV… or /av… that the site also redirects to the video page.
const VIDEO_PATH = new RegExp(`^/(?:(?:s/)?video/)?(?:${BV}|av(\\d+))(?:/|$)`);
const BV_ONLY = new RegExp(`^${BV}$`);
const SHORT_BV_PATH = new RegExp(`^/${BV}/?$`);
/** Short-link hosts: b23.tv and its newer twin bili2233.cn (same codes, same redirect). */
const SHORT_HOSTS = ['b23.tv', 'bili2233.cn'];
const SHORT_CODE_PATH = /^\/[A-Za-z0-9]+\/?$/;
const MAX_HOPS = 3;
const NOT_VIDEO = 'Not a Bilibili video link.';
const NOT_VIDEO_ZH = '不是B站视频链接';
const VIEW_API: StepName = { en: 'Bilibili view API', zh: 'B站视频信息接口' };
const PLAYURL_API: StepName = { en: 'Bilibili playurl API', zh: 'B站播放地址接口' };

/** The video a link points at: a BV id (or, for old links, an av number) and the 1-based part `p`. */
export interface VideoRef {
  bvid: string | null;
  aid: string | null;
  page: number;
}

/**
 * The video a bilibili.com link names: the /video/ path, else a `bvid=` (or `aid=`) in the query, which is how
 * festival/theme pages (/festival/<name>?bvid=…), play lists (/list/<mid>?…&bvid=…) and watch-later pages carry
 * the video they open. `p` is the part on /video/ pages; the other pages open part 1.
 */
export function refFromBiliUrl(parts: UrlParts): VideoRef | null {
  const p = Number(queryParam(parts.query, 'p') ?? '1');
  const page = Number.isInteger(p) && p > 0 ? p : 1;
  const m = VIDEO_PATH.exec(parts.path);
  if (m) return { bvid: m[1] ?? null, aid: m[2] ?? null, page };
  const bvid = queryParam(parts.query, 'bvid');
  if (bvid && BV_ONLY.test(bvid)) return { bvid, aid: null, page: 1 };
  const aid = queryParam(parts.query, 'aid');
  if (aid && /^\d{1,20}$/.test(aid)) return { bvid: null, aid, page: 1 };
  return null;
}

/** Why a Bilibili link cannot name a video (checked before any fetch), or null. */
function refuseLink(parts: UrlParts): string | null {
  if (SHORT_HOSTS.includes(parts.host))
    return parts.path === '/' || parts.path === '' ? 'a Bilibili short link without its code' : null;
  if (parts.host === 'space.bilibili.com' || /^\/space\//.test(parts.path)) return 'a Bilibili profile page';
  if ((parts.path === '/' || parts.path === '') && !refFromBiliUrl(parts)) return 'the Bilibili home page';
  return null;
}

/** Step 1: short-link hops (redirects off) until a bilibili.com URL that names a video. */
async function resolveRef(start: UrlParts, host: Host): Promise<Step<VideoRef>> {
  let parts = start;
  for (let hop = 0; hop <= MAX_HOPS; hop++) {
    if (!SHORT_HOSTS.includes(parts.host)) {
      const ref = /(^|\.)bilibili\.com$/.test(parts.host) ? refFromBiliUrl(parts) : null;
      return ref ? { ok: true, value: ref } : fail('UNSUPPORTED', NOT_VIDEO, NOT_VIDEO_ZH);
    }
    const direct = SHORT_BV_PATH.exec(parts.path);
    if (direct) return { ok: true, value: { bvid: direct[1], aid: null, page: 1 } };
    if (!SHORT_CODE_PATH.test(parts.path)) return fail('UNSUPPORTED', NOT_VIDEO, NOT_VIDEO_ZH);
    const where = { en: `Bilibili ${parts.host} short link`, zh: 'B站短链接' };
    const got = await fetchStep(host, where, `https://${parts.host}${parts.path}`, { headers, redirect: 'manual' });
    if (!got.ok) return got;
    const location = header(got.value, 'location');
    if (!isRedirect(got.value.status) || !location) {
      if (got.value.status === 404)
        return fail(
          'NOT_FOUND',
          `Bilibili: the ${parts.host} short link does not exist (HTTP 404).`,
          'B站短链接不存在',
        );
      return fail(
        'UPSTREAM_FAILED',
        `${where.en}: no redirect (HTTP ${got.value.status}).`,
        `B站短链接没有跳转（HTTP ${got.value.status}）`,
      );
    }
    const next = parseUrl(resolveLocation(location, parts));
    if (!next) return fail('UNSUPPORTED', NOT_VIDEO, NOT_VIDEO_ZH);
    parts = next;
  }
  return fail('UPSTREAM_FAILED', 'Bilibili short link: too many redirects.', 'B站短链接跳转次数过多');
}

const NOT_FOUND_CODES = new Set([-404, 62002, 62004, 62012]);

/** Checks HTTP status, body and the API's `code`; returns `data`. */
function apiData(res: HostFetchResponse, step: StepName): Step<JsonRecord | null> {
  const throttled = `${step.zh}访问受限，请稍后重试`;
  if (res.status === 412) return fail('UPSTREAM_FAILED', `${step.en}: throttled (HTTP 412).`, throttled);
  if (res.status !== 200)
    return fail('UPSTREAM_FAILED', `${step.en}: HTTP ${res.status}.`, `${step.zh}返回 HTTP ${res.status}`);
  if (res.body.trim() === '') return fail('UPSTREAM_FAILED', `${step.en}: empty body.`, `${step.zh}返回空内容`);
  const json = parseJson(res.body);
  if (!json.ok || num(at(json.value, 'code')) === null)
    return fail(
      'UPSTREAM_FAILED',
      `${step.en}: not the expected JSON (changed shape).`,
      `${step.zh}返回的数据格式已变化`,
    );
  const code = num(at(json.value, 'code')) as number;
  const message = str(at(json.value, 'message')) ?? '';
  if (code === 0) return { ok: true, value: rec(at(json.value, 'data')) };
  if (NOT_FOUND_CODES.has(code))
    return fail(
      'NOT_FOUND',
      `Bilibili: the video does not exist or is not visible (code ${code} ${message}).`,
      'B站视频不存在或不可见',
    );
  if (code === -412) return fail('UPSTREAM_FAILED', `${step.en}: throttled (code -412 ${message}).`, throttled);
  return fail('UPSTREAM_FAILED', `${step.en}: code ${code} ${message}.`, `${step.zh}返回错误（code ${code}）`);
}

async function parse(url: string, host: Host): Promise<PluginOutcome<JiexiData>> {
  const start = parseUrl(url);
  if (!start) return fail('UNSUPPORTED', NOT_VIDEO, NOT_VIDEO_ZH);
  const ref = await resolveRef(start, host);
  if (!ref.ok) return ref;
  const { bvid, aid, page } = ref.value;
  const query = bvid ? `bvid=${bvid}` : `aid=${aid ?? ''}`;
  const viewRes = await fetchStep(host, VIEW_API, `${API}/x/web-interface/view?${query}`, { headers });
  if (!viewRes.ok) return viewRes;
  const view = apiData(viewRes.value, VIEW_API);
  if (!view.ok) return view;
  const data = view.value;
  const pages = arr(at(data, 'pages'));
  if (!data || pages.length === 0)
    return fail(
      'UPSTREAM_FAILED',
      'Bilibili view API: the video has no pages (no playable part).',
      'B站视频没有可播放的分P',
    );
  const part = pages[Math.min(page, pages.length) - 1];
  const cid = idStr(at(part, 'cid'));
  const id = str(data.bvid) ?? bvid;
  if (!cid || !id)
    return fail(
      'UPSTREAM_FAILED',
      'Bilibili view API: pages[].cid or bvid missing (changed shape).',
      'B站视频信息缺少 cid 或 bvid（接口数据格式已变化）',
    );
  const playQuery = `otype=json&fnver=0&fnval=0&qn=80&bvid=${id}&cid=${cid}&platform=html5`;
  const playRes = await fetchStep(host, PLAYURL_API, `${API}/x/player/playurl?${playQuery}`, { headers });
  if (!playRes.ok) return playRes;
  const play = apiData(playRes.value, PLAYURL_API);
  if (!play.ok) return play;
  const mp4 = str(at(play.value, 'durl', 0, 'url'));
  if (!mp4)
    return fail(
      'UPSTREAM_FAILED',
      'Bilibili playurl API: durl is empty (no progressive stream for this video).',
      'B站没有该视频的 MP4 播放地址',
    );
  const pageDuration = num(at(part, 'duration'));
  return {
    ok: true,
    data: {
      platform: 'bilibili',
      id,
      type: 'video',
      title: str(data.title) ?? '',
      cover: str(data.pic)?.replace(/^http:/, 'https:') ?? null,
      url: mp4,
      images: [],
      author: {
        id: idStr(at(data, 'owner', 'mid')),
        name: str(at(data, 'owner', 'name')),
        avatar: str(at(data, 'owner', 'face')),
      },
      duration: pageDuration ?? num(data.duration),
      music: null,
      ...noExtras(),
    },
  };
}

export const bilibili: PlatformModule = {
  id: 'bilibili',
  label: 'B站',
  linkHosts: [...SHORT_HOSTS, 'www.bilibili.com', 'm.bilibili.com', 'bilibili.com', 'space.bilibili.com'],
  fetchHosts: [...SHORT_HOSTS, 'api.bilibili.com'],
  refuseLink,
  parse,
};
