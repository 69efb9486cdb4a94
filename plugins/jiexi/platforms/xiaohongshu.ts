// Xiaohongshu (小红书) and its international site RedNote. Protocol (research/video.md §3, as of 2026):
// 1. GET the share link (xhslink.com|xhslink.cn/[a|o|n|m/]<code>) or the note page
//    (www.xiaohongshu.com|www.rednote.com/explore|discovery/item/<24 hex>?xsec_token=…), following redirects (the
//    host re-checks every hop against allow_hosts). DESKTOP Chrome UA, no cookie.
// 2. window.__INITIAL_STATE__ (bare `undefined` → null); id = note.currentNoteId; n = note.noteDetailMap[id].note.
// 3. An /explore/ page whose entry is empty is read once more as /discovery/item/<id> with the same xsec_token:
//    the desktop explore page withholds some notes that the discovery page serves. Only then is it NOT_FOUND.
// Page classification (bot walls vs gone notes) is in xhs-page.ts; media choice (no WM_ streams, original
// images, Live Photo clips) in xhs-media.ts.
import type { Host, PluginOutcome } from '../../../core/sandbox/contract.js';
import { at, type JsonRecord, num, str } from '../../_lib/pick.js';
import { parseUrl, queryParam, type UrlParts } from '../../_lib/url-lite.js';
import type { JiexiData, ParseOptions, PlatformModule } from '../platform.js';
import { fail } from '../upstream.js';
import { noteImages, pickVideo } from './xhs-media.js';
import { NOTE_ID_IN_PATH, NOTE_PAGE_HOSTS, type PageVerdict, readNotePage } from './xhs-page.js';

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
    return fail('UPSTREAM_FAILED', 'Xiaohongshu note page: video note without a stream URL (changed shape).');
  }
  if (!isVideo && images.length === 0)
    return fail('UPSTREAM_FAILED', 'Xiaohongshu note page: note has neither video nor images (changed shape).');
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

/** The discovery-page URL for a second read of an empty /explore/ entry, or null when it was not an explore page. */
function discoveryRetryUrl(verdict: Extract<PageVerdict, { kind: 'empty' }>): string | null {
  if (!/^\/explore\//.test(verdict.landed.path)) return null;
  const token = queryParam(verdict.landed.query, 'xsec_token');
  const query = token ? `?xsec_token=${encodeURIComponent(token)}` : '';
  return `https://${verdict.landed.host}/discovery/item/${verdict.id}${query}`;
}

function notVisible(verdict: Extract<PageVerdict, { kind: 'empty' }>): PluginOutcome<JiexiData> {
  const noToken =
    queryParam(verdict.landed.query, 'xsec_token') === null
      ? ' The link has no xsec_token: paste the share link instead.'
      : '';
  const code = verdict.errorCode !== null ? ` (errorCode ${verdict.errorCode})` : '';
  return fail(
    'NOT_FOUND',
    `小红书笔记不可见（仅登录可见、已删除或受限）(Xiaohongshu: the note is not publicly visible: login-only, removed or restricted${code}).${noToken}`,
  );
}

async function parse(url: string, host: Host, options: ParseOptions): Promise<PluginOutcome<JiexiData>> {
  const parts = parseUrl(url);
  const target = parts ? fetchTarget(parts) : null;
  if (!target) return fail('UNSUPPORTED', NOT_A_NOTE);
  const first = await readNotePage(target, host);
  if (first.kind === 'note') return noteToData(first.note, first.id, options);
  if (first.kind === 'failed') return first.failure;
  const retryUrl = discoveryRetryUrl(first);
  if (!retryUrl) return notVisible(first);
  const second = await readNotePage(retryUrl, host);
  if (second.kind === 'note') return noteToData(second.note, second.id, options);
  if (second.kind === 'empty') return notVisible(second);
  return second.failure;
}

export const xiaohongshu: PlatformModule = {
  id: 'xiaohongshu',
  label: '小红书',
  linkHosts: [...SHORT_HOSTS, ...NOTE_PAGE_HOSTS, ...Object.keys(BARE_TO_WWW)],
  fetchHosts: [...SHORT_HOSTS, ...NOTE_PAGE_HOSTS],
  parse,
};
