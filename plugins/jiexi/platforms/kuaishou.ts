// Kuaishou (快手) and 快手极速版. Protocol (2026):
// 1. Short link (v.kuaishou.com/<code>, 极速版 v.kuaishouapp.com/s/<code>, www.kuaishou.com/f/<code>): GET with an
//    iPhone UA, redirects off, and take Location: usually the H5 page (v.m.chenzhongtech.com or m.kuaishou.com
//    /fw/photo/<id>), sometimes the desktop www.kuaishou.com/short-video/<id>.
// 2. The desktop short-video page is asked once (redirects off): a phone is usually redirected on to the H5 page.
//    When it answers with its own page instead (an empty desktop shell: the data is rendered in the browser) or a
//    404, the post is read from the mobile page m.kuaishou.com/fw/photo/<id> before anything is concluded.
// 3. /fw/long-video/ and /fw/video/ are rewritten to /fw/photo/: those pages have another shape.
// 4. GET the H5 page (iPhone UA), sending the redirects' cookies back (without them some nodes answer 404).
// 5. window.INIT_STATE: the linked post is found by shape and photo id (ks-state.ts).
import type { Host, PluginOutcome } from '../../../core/sandbox/contract.js';
import { parseStateScript } from '../../_lib/state-script.js';
import { hostMatches, parseUrl, queryParam, resolveLocation, type UrlParts } from '../../_lib/url-lite.js';
import { HTML_ACCEPT, IPHONE_SAFARI_UA } from '../../_lib/user-agents.js';
import type { JiexiData, PlatformModule } from '../platform.js';
import { cookieHeader, fail, fetchStep, header, isRedirect, type Step } from '../upstream.js';
import { CAPTCHA_ZH, findLinkedPhoto, photoToData } from './ks-state.js';

/** Share-link hosts: the main app's and 极速版's (v.kuaishouapp.com/s/<code>). */
const SHORT_HOSTS = ['v.kuaishou.com', 'v.kuaishouapp.com'];
/** The desktop site: /f/<code> short links, /short-video/<id> pages, /profile/<id>. */
const DESKTOP_HOSTS = ['www.kuaishou.com', 'kuaishou.com'];
/** H5 pages read where they are: the main app's (chenzhongtech, m.kuaishou) and 极速版's (gifshow). */
const PAGE_HOSTS = [
  'v.m.chenzhongtech.com',
  '*.m.chenzhongtech.com',
  'm.gifshow.com',
  'www.gifshow.com',
  'm.kuaishou.com',
];
/** Other hosts of the same H5 page, and where it is read: 2026 share links land on m.kuaishou.com. */
const ALIAS_TO_PAGE_HOST: Record<string, string> = {
  'c.kuaishou.com': 'm.kuaishou.com',
  'v.m.kuaishou.com': 'm.kuaishou.com',
  'gifshow.com': 'www.gifshow.com',
};
const MOBILE_ALIASES = Object.keys(ALIAS_TO_PAGE_HOST);
const MOBILE_PAGE_HOST = 'm.kuaishou.com';
const LINK_HOSTS = [...SHORT_HOSTS, ...DESKTOP_HOSTS, ...PAGE_HOSTS, ...MOBILE_ALIASES];
const FETCH_HOSTS = [...SHORT_HOSTS, 'www.kuaishou.com', ...PAGE_HOSTS];

const H5_PAGE = /^\/fw\/(?:photo|long-video|video)\/([A-Za-z0-9_-]+)/;
const SHORT_VIDEO = /^\/short-video\/([A-Za-z0-9_-]+)/;
const SHORT_CODE = /^\/(?:s\/)?[A-Za-z0-9_-]+\/?$/;
const F_CODE = /^\/f\/[A-Za-z0-9_-]+\/?$/;
const MAX_HOPS = 4;
const NOT_VIDEO = 'Not a Kuaishou video link.';
const NOT_VIDEO_ZH = '不是快手视频链接';
const SHORT_LINK = { en: 'Kuaishou short link', zh: '快手短链接' };
const DESKTOP_PAGE = { en: 'Kuaishou desktop page', zh: '快手网页版页面' };
const SHARE_PAGE = { en: 'Kuaishou share page', zh: '快手分享页' };

const headers = { 'User-Agent': IPHONE_SAFARI_UA, Accept: HTML_ACCEPT, Referer: 'https://v.kuaishou.com/' };

interface PageTarget {
  url: string;
  photoId: string | null;
  cookie: string | null;
}

/** Why a Kuaishou link cannot name a post (checked before any fetch), or null. */
function refuseLink(parts: UrlParts): string | null {
  if (SHORT_HOSTS.includes(parts.host) && /^\/(?:s\/?)?$/.test(parts.path))
    return 'a Kuaishou short link without its code';
  if (/^\/f\/?$/.test(parts.path)) return 'a Kuaishou short link without its code';
  if (/^\/(?:profile|fw\/user)\//.test(parts.path)) return 'a Kuaishou profile page';
  if (parts.path === '/' || parts.path === '') return 'the Kuaishou home page';
  return null;
}

function isCaptchaTarget(parts: UrlParts): boolean {
  return /(?:^|\.)captcha\./.test(parts.host) || /captcha/i.test(parts.path);
}

/** The H5 photo page for an H5 path: /fw/long-video/ and /fw/video/ become /fw/photo/ on `pageHost`. */
function h5Target(parts: UrlParts, pageHost: string, cookies: string[]): PageTarget {
  const path = parts.path.replace(/^\/fw\/(?:long-video|video)\//, '/fw/photo/');
  const photoId = H5_PAGE.exec(parts.path)?.[1] ?? queryParam(parts.query, 'photoId');
  const url = `https://${pageHost}${path}${parts.query ? `?${parts.query}` : ''}`;
  return { url, photoId, cookie: cookieHeader(cookies) };
}

/** Steps 1-3: from the pasted link to the H5 photo page URL (plus cookies the redirects set). */
async function resolvePage(start: UrlParts, host: Host): Promise<Step<PageTarget>> {
  let parts = start;
  const cookies: string[] = [];
  for (let hop = 0; hop < MAX_HOPS; hop++) {
    const onPageHost = hostMatches(parts.host, PAGE_HOSTS);
    const onAlias = MOBILE_ALIASES.includes(parts.host);
    const onDesktop = DESKTOP_HOSTS.includes(parts.host);
    if (onPageHost || onAlias || (onDesktop && H5_PAGE.test(parts.path))) {
      if (!H5_PAGE.test(parts.path)) return fail('UNSUPPORTED', NOT_VIDEO, NOT_VIDEO_ZH);
      const pageHost = onPageHost ? parts.host : (ALIAS_TO_PAGE_HOST[parts.host] ?? MOBILE_PAGE_HOST);
      return { ok: true, value: h5Target(parts, pageHost, cookies) };
    }
    const onShortHost = SHORT_HOSTS.includes(parts.host);
    const shortVideo = onDesktop || onShortHost ? SHORT_VIDEO.exec(parts.path) : null;
    const isShort = (onShortHost && SHORT_CODE.test(parts.path)) || (onDesktop && F_CODE.test(parts.path));
    if (!shortVideo && !isShort) return fail('UNSUPPORTED', NOT_VIDEO, NOT_VIDEO_ZH);
    const where = shortVideo ? DESKTOP_PAGE : SHORT_LINK;
    const url = `https://${shortVideo ? 'www.kuaishou.com' : parts.host}${parts.path}${parts.query ? `?${parts.query}` : ''}`;
    const got = await fetchStep(host, where, url, { headers, redirect: 'manual' });
    if (!got.ok) return got;
    const res = got.value;
    cookies.push(...res.set_cookies);
    const location = header(res, 'location');
    if (!isRedirect(res.status) || !location) {
      // The desktop page answered with itself (an empty shell for a phone) or a 404: the mobile page has the post.
      if (shortVideo) {
        const mobile = { ...parts, host: MOBILE_PAGE_HOST, path: `/fw/photo/${shortVideo[1]}` };
        return { ok: true, value: h5Target(mobile, MOBILE_PAGE_HOST, cookies) };
      }
      if (res.status === 404)
        return fail('NOT_FOUND', 'Kuaishou short link does not exist (HTTP 404).', '快手短链接不存在');
      return fail(
        'UPSTREAM_FAILED',
        `Kuaishou short link: expected a redirect, got HTTP ${res.status}.`,
        `快手短链接没有跳转（HTTP ${res.status}）`,
      );
    }
    const next = parseUrl(resolveLocation(location, parts));
    if (!next)
      return fail('UPSTREAM_FAILED', `${where.en}: redirect target is not a URL.`, `${where.zh}跳转到无法识别的地址`);
    // A throttled IP is sent to the captcha site (captcha.zt.kuaishou.com) instead of the video: that is a
    // refusal to retry later, not a link to something else.
    if (isCaptchaTarget(next))
      return fail(
        'UPSTREAM_FAILED',
        `${where.en}: redirected to a captcha page (${next.host}); IP rate-limited, retry later.`,
        CAPTCHA_ZH,
      );
    if (!hostMatches(next.host, LINK_HOSTS)) return fail('UNSUPPORTED', NOT_VIDEO, NOT_VIDEO_ZH);
    parts = next;
  }
  return fail('UPSTREAM_FAILED', 'Kuaishou short link: too many redirects.', '快手短链接跳转次数过多');
}

async function parse(url: string, host: Host): Promise<PluginOutcome<JiexiData>> {
  const start = parseUrl(url);
  if (!start) return fail('UNSUPPORTED', NOT_VIDEO, NOT_VIDEO_ZH);
  const target = await resolvePage(start, host);
  if (!target.ok) return target;
  const pageHeaders: Record<string, string> = { ...headers };
  if (target.value.cookie) pageHeaders.Cookie = target.value.cookie;
  const got = await fetchStep(host, SHARE_PAGE, target.value.url, { headers: pageHeaders });
  if (!got.ok) return got;
  const page = got.value;
  if (page.status === 404)
    return fail('NOT_FOUND', 'Kuaishou: the video page does not exist (HTTP 404).', '快手视频页面不存在');
  if (page.status !== 200)
    return fail('UPSTREAM_FAILED', `Kuaishou share page: HTTP ${page.status}.`, `快手分享页返回 HTTP ${page.status}`);
  if (page.body.trim() === '')
    return fail('UPSTREAM_FAILED', 'Kuaishou share page: empty body.', '快手分享页返回空内容');
  const state = parseStateScript(page.body, 'INIT_STATE');
  if (!state.ok)
    return fail(
      'UPSTREAM_FAILED',
      'Kuaishou share page could not be read (verification page or changed layout).',
      '快手分享页无法读取（验证页面或页面结构已变化）',
      state.detail,
    );
  const found = findLinkedPhoto(state.value, target.value.photoId);
  if (found.kind === 'failed') return found.failure;
  const data = photoToData(found.hit, target.value.photoId ?? '');
  if (data.type === 'video' && !data.url)
    return fail(
      'UPSTREAM_FAILED',
      'Kuaishou share page: photo has neither mainMvUrls nor atlas images (changed shape).',
      '快手作品既没有视频地址也没有图片（页面数据格式已变化）',
    );
  return { ok: true, data };
}

export const kuaishou: PlatformModule = {
  id: 'kuaishou',
  label: '快手',
  linkHosts: LINK_HOSTS,
  fetchHosts: FETCH_HOSTS,
  refuseLink,
  parse,
};
