// Xiaohongshu (小红书) and its international site RedNote. Protocol (as of 2026):
// 1. A share link (xhslink.com|xhslink.cn/[a|o|n|m/]<code>) is asked with redirects off: its Location is the note
//    page (/discovery/item/<24 hex>?xsec_token=…), which names the note even when that page later sends the
//    desktop browser to /404. A Location that is a bot wall or a gone page is classified without fetching it.
// 2. GET the note page (www.xiaohongshu.com|www.rednote.com/explore|discovery/item/<id>?xsec_token=…), following
//    redirects (the host re-checks every hop against allow_hosts). DESKTOP Chrome UA, no cookie.
//    window.__INITIAL_STATE__ (bare `undefined` → null); id = note.currentNoteId; n = note.noteDetailMap[id].note.
// 3. An /explore/ page whose entry is empty is read once more as /discovery/item/<id> with the same xsec_token:
//    the desktop explore page withholds some notes that the discovery page serves.
// 4. Still empty, or the desktop site answered 404 / redirected to /404 (it does both for notes that exist):
//    the mobile page /discovery/item/<id> with an iPhone UA, whose state is `noteData.data.noteData`. Only when
//    the mobile page has no note either is it NOT_FOUND; a bot wall there stays UPSTREAM_FAILED.
// Page classification (bot walls vs gone notes) is in xhs-page.ts; media choice (no WM_ streams, original
// images, Live Photo clips) in xhs-media.ts.
import type { Host, PluginOutcome } from '../../../core/sandbox/contract.js';
import { at, type JsonRecord, num, str } from '../../_lib/pick.js';
import { parseUrl, queryParam, resolveLocation, type UrlParts } from '../../_lib/url-lite.js';
import { DESKTOP_CHROME_UA, HTML_ACCEPT } from '../../_lib/user-agents.js';
import type { JiexiData, ParseOptions, PlatformModule } from '../platform.js';
import { fail, fetchStep, header, isRedirect, type Step } from '../upstream.js';
import { noteImages, pickVideo } from './xhs-media.js';
import { classifyLanding, NOTE_ID_IN_PATH, NOTE_PAGE_HOSTS, type PageVerdict, readNotePage } from './xhs-page.js';

const SHORT_HOSTS = ['xhslink.com', 'xhslink.cn'];
// Short codes come as /a/<code>, /o/<code>, /n/<code>, /m/<code> and, on older links, a bare /<code>.
const SHORT_PATH = /^\/(?:[aonm]\/)?[A-Za-z0-9]+\/?$/;
// Note links people paste: explore and discovery pages, plus search-result and profile-note paths that show the
// same note (rewritten to /explore/<id> before fetching, query kept: xsec_token is what makes them readable).
const NOTE_PATHS = [
  /^\/(?:explore|discovery\/item|search_result)\/([0-9a-f]{24})\/?$/,
  /^\/user\/profile\/[0-9a-f]{24}\/([0-9a-f]{24})\/?$/,
];
const BARE_TO_WWW: Record<string, string> = {
  'xiaohongshu.com': 'www.xiaohongshu.com',
  'rednote.com': 'www.rednote.com',
};
const NOT_A_NOTE = 'Not a Xiaohongshu note link.';
const NOT_A_NOTE_ZH = '不是小红书笔记链接';
const MAX_SHORT_HOPS = 3;

const WATERMARK_NOTE =
  '该视频只有带水印的版本，url 为空，带水印地址见 watermark_url (this video is only offered with a watermark: url is null, watermark_url holds the watermarked stream).';

/** The URL to fetch for a pasted link, or null when the link is not a note or share link. */
export function fetchTarget(parts: UrlParts): string | null {
  const query = parts.query ? `?${parts.query}` : '';
  if (SHORT_HOSTS.includes(parts.host))
    return SHORT_PATH.test(parts.path) ? `https://${parts.host}${parts.path}${query}` : null;
  const host = BARE_TO_WWW[parts.host] ?? parts.host;
  if (!NOTE_PAGE_HOSTS.includes(host)) return null;
  for (const re of NOTE_PATHS) {
    const m = re.exec(parts.path);
    if (!m) continue;
    const path = NOTE_ID_IN_PATH.test(parts.path) ? parts.path : `/explore/${m[1]}`;
    return `https://${host}${path}${query}`;
  }
  return null;
}

/** Why a Xiaohongshu link cannot name a note (checked before any fetch), or null. */
function refuseLink(parts: UrlParts): string | null {
  if (SHORT_HOSTS.includes(parts.host))
    return /^\/(?:[aonm]\/?)?$/.test(parts.path) ? 'a Xiaohongshu short link without its code' : null;
  if (/^\/user\/profile\/[0-9a-f]{24}\/?$/.test(parts.path)) return 'a Xiaohongshu profile page';
  if (parts.path === '/' || parts.path === '') return 'the Xiaohongshu home page';
  return null;
}

/** The note page named by a landing's `redirectPath=` (an absolute note URL on the note site), or null. */
function redirectPathTarget(landing: UrlParts): string | null {
  const named = parseUrl(queryParam(landing.query, 'redirectPath') ?? '');
  return named && !SHORT_HOSTS.includes(named.host) ? fetchTarget(named) : null;
}

/**
 * Step 1: xhslink hops with redirects off, until a note page URL. A Location on the note site that is not a
 * note (security page, login, /404) is classified here and never fetched; one off the site is not followed.
 */
async function resolveShort(start: string, host: Host): Promise<Step<string>> {
  let url = start;
  for (let hop = 0; hop < MAX_SHORT_HOPS; hop++) {
    const parts = parseUrl(url);
    if (!parts)
      return fail(
        'UPSTREAM_FAILED',
        'Xiaohongshu share link: redirect target is not a URL.',
        '小红书分享链接跳转到无法识别的地址',
      );
    if (!SHORT_HOSTS.includes(parts.host)) {
      const target = fetchTarget(parts);
      if (target) return { ok: true, value: target };
      const verdict = classifyLanding(parts) ?? fail('UNSUPPORTED', NOT_A_NOTE, NOT_A_NOTE_ZH);
      // A plain /404 (not a security page) that still names the note in redirectPath is the desktop 404 of a note
      // that may exist: the note page is read, so its 404 leads on to the mobile page.
      const named = verdict.code === 'NOT_FOUND' ? redirectPathTarget(parts) : null;
      return named ? { ok: true, value: named } : verdict;
    }
    const got = await fetchStep(host, { en: 'Xiaohongshu share link', zh: '小红书分享链接' }, url, {
      headers: { 'User-Agent': DESKTOP_CHROME_UA, Accept: HTML_ACCEPT },
      redirect: 'manual',
    });
    if (!got.ok) return got;
    const location = header(got.value, 'location');
    if (!isRedirect(got.value.status) || !location) {
      if (got.value.status === 404)
        return fail('NOT_FOUND', '小红书分享链接不存在 (Xiaohongshu: the share link does not exist, HTTP 404).');
      return fail(
        'UPSTREAM_FAILED',
        `Xiaohongshu share link: expected a redirect, got HTTP ${got.value.status}.`,
        `小红书分享链接没有跳转（HTTP ${got.value.status}）`,
      );
    }
    url = resolveLocation(location, parts);
  }
  return fail('UPSTREAM_FAILED', 'Xiaohongshu share link: too many redirects.', '小红书分享链接跳转次数过多');
}

function noteDuration(n: JsonRecord): number | null {
  // capa.duration is seconds; media.video.duration too (stream entries carry ms, not used here).
  const d = num(at(n, 'video', 'capa', 'duration')) ?? num(at(n, 'video', 'media', 'video', 'duration'));
  return d !== null && d > 0 ? d : null;
}

export function noteToData(
  n: JsonRecord,
  id: string,
  options: ParseOptions = { imageFormat: null },
): PluginOutcome<JiexiData> {
  const items = noteImages(n.imageList, options.imageFormat);
  const images = items.map((i) => i.url);
  const isVideo = n.type === 'video';
  const video = isVideo ? pickVideo(n.video) : { url: null, watermarkUrl: null };
  if (isVideo && !video.url && !video.watermarkUrl) {
    return fail(
      'UPSTREAM_FAILED',
      'Xiaohongshu note page: video note without a stream URL (changed shape).',
      '小红书视频笔记缺少视频地址（页面数据格式已变化）',
    );
  }
  if (!isVideo && images.length === 0)
    return fail(
      'UPSTREAM_FAILED',
      'Xiaohongshu note page: note has neither video nor images (changed shape).',
      '小红书笔记既没有视频也没有图片（页面数据格式已变化）',
    );
  const watermark = isVideo && video.url === null;
  return {
    ok: true,
    data: {
      platform: 'xiaohongshu',
      id: str(n.noteId) ?? id,
      type: isVideo ? 'video' : 'images',
      title: str(n.title) ?? str(n.desc) ?? '',
      cover: images[0] ?? null,
      url: video.url,
      images: isVideo ? [] : images,
      author: {
        id: str(at(n, 'user', 'userId')),
        name: str(at(n, 'user', 'nickname')),
        avatar: str(at(n, 'user', 'avatar')),
      },
      duration: isVideo ? noteDuration(n) : null,
      music: null,
      image_items: isVideo ? [] : items,
      watermark,
      watermark_url: watermark ? video.watermarkUrl : null,
      note: watermark ? WATERMARK_NOTE : null,
    },
  };
}

/** /discovery/item/<id> on `site`, keeping only the xsec_token (what makes a note readable without login). */
function discoveryUrl(site: string, id: string, query: string): string {
  const token = queryParam(query, 'xsec_token');
  return `https://${site}/discovery/item/${id}${token ? `?xsec_token=${encodeURIComponent(token)}` : ''}`;
}

/** The discovery-page URL for a second read of an empty /explore/ entry, or null when it was not an explore page. */
function discoveryRetryUrl(verdict: Extract<PageVerdict, { kind: 'empty' }>): string | null {
  if (!/^\/explore\//.test(verdict.landed.path)) return null;
  return discoveryUrl(verdict.landed.host, verdict.id, verdict.landed.query);
}

function notVisible(verdict: Extract<PageVerdict, { kind: 'empty' }>): PluginOutcome<JiexiData> {
  const tokenless = queryParam(verdict.landed.query, 'xsec_token') === null;
  const noToken = tokenless ? ' The link has no xsec_token: paste the share link instead.' : '';
  const noTokenZh = tokenless ? '。链接缺少 xsec_token，请改用分享链接' : '';
  const code = verdict.errorCode !== null ? ` (errorCode ${verdict.errorCode})` : '';
  return fail(
    'NOT_FOUND',
    `Xiaohongshu: the note is not publicly visible: login-only, removed or restricted${code}.${noToken}`,
    `小红书笔记不可见（仅登录可见、已删除或受限）${noTokenZh}`,
  );
}

/** Step 4: what the mobile page says after the desktop site had no note (`desktop` is its last verdict). */
function afterMobile(
  desktop: Extract<PageVerdict, { kind: 'empty' | 'missing' }>,
  mobile: PageVerdict,
  options: ParseOptions,
): PluginOutcome<JiexiData> {
  if (mobile.kind === 'note') return noteToData(mobile.note, mobile.id, options);
  if (mobile.kind === 'failed' && mobile.failure.code !== 'NOT_FOUND') {
    // The mobile page refused us (bot wall, throttling, timeout): the desktop 404 alone does not prove the note
    // is gone, so this stays a retryable failure.
    const { code, message, message_zh } = mobile.failure;
    return fail(code, `${message.replace(/\.$/, '')}; the desktop page had no note either`, message_zh);
  }
  return desktop.kind === 'empty' ? notVisible(desktop) : desktop.failure;
}

async function parse(url: string, host: Host, options: ParseOptions): Promise<PluginOutcome<JiexiData>> {
  const parts = parseUrl(url);
  const direct = parts ? fetchTarget(parts) : null;
  if (!parts || !direct) return fail('UNSUPPORTED', NOT_A_NOTE, NOT_A_NOTE_ZH);
  const resolved = SHORT_HOSTS.includes(parts.host)
    ? await resolveShort(direct, host)
    : { ok: true as const, value: direct };
  if (!resolved.ok) return resolved;
  const target = parseUrl(resolved.value) as UrlParts;
  const linkedId = NOTE_ID_IN_PATH.exec(target.path)?.[1] ?? null;

  let verdict = await readNotePage(resolved.value, host);
  if (verdict.kind === 'note') return noteToData(verdict.note, verdict.id, options);
  if (verdict.kind === 'failed') return verdict.failure;
  const retryUrl = verdict.kind === 'empty' ? discoveryRetryUrl(verdict) : null;
  if (retryUrl) {
    verdict = await readNotePage(retryUrl, host);
    if (verdict.kind === 'note') return noteToData(verdict.note, verdict.id, options);
    if (verdict.kind === 'failed') return verdict.failure;
  }
  const id = verdict.kind === 'empty' ? verdict.id : linkedId;
  if (!id) return verdict.kind === 'empty' ? notVisible(verdict) : verdict.failure;
  // The mobile page gets the link's whole query (xsec_token, xsec_source, share ids), as the app's own share
  // landing carries it.
  const mobileUrl = `https://${target.host}/discovery/item/${id}${target.query ? `?${target.query}` : ''}`;
  const mobile = await readNotePage(mobileUrl, host, 'mobile');
  return afterMobile(verdict, mobile, options);
}

export const xiaohongshu: PlatformModule = {
  id: 'xiaohongshu',
  label: '小红书',
  linkHosts: [...SHORT_HOSTS, ...NOTE_PAGE_HOSTS, ...Object.keys(BARE_TO_WWW)],
  fetchHosts: [...SHORT_HOSTS, ...NOTE_PAGE_HOSTS],
  refuseLink,
  parse,
};
