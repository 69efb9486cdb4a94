// Xiaohongshu (小红书). Protocol (research/video.md §3, as of 2026):
// 1. GET the share link (xhslink.com/a|o|n/<code>, xhslink.cn/o/<code>) or the note page
//    (www.xiaohongshu.com/explore|discovery/item/<24 hex>?xsec_token=…), following redirects (the host re-checks
//    every hop against allow_hosts). DESKTOP Chrome UA, no cookie. 418/412 = this IP is throttled.
// 2. window.__INITIAL_STATE__ has bare `undefined` literals; state-script turns them into null.
// 3. id = note.currentNoteId (the string "undefined" = expired share link), n = note.noteDetailMap[id].note.
// Login-only posts (and explore links without xsec_token) come back with an empty note: NOT_FOUND, because a
// retry cannot change that without a login cookie, which this plugin deliberately does not carry.
import type { Host, PluginFailure, PluginOutcome } from '../../../core/sandbox/contract.js';
import { parseUrl, queryParam } from '../../_lib/url-lite.js';
import { DESKTOP_CHROME_UA, HTML_ACCEPT } from '../../_lib/user-agents.js';
import { parseStateScript } from '../../_lib/state-script.js';
import { arr, at, num, rec, str, type JsonRecord } from '../../_lib/pick.js';
import type { JiexiData, PlatformModule } from '../platform.js';
import { fail, fetchStep } from '../upstream.js';

const PAGE_HOST = 'www.xiaohongshu.com';
const LINK_SHAPES: Record<string, RegExp> = {
  'xhslink.com': /^\/[aon]\/[A-Za-z0-9]+\/?$/,
  'xhslink.cn': /^\/o\/[A-Za-z0-9]+\/?$/,
  [PAGE_HOST]: /^\/(?:explore|discovery\/item)\/[0-9a-f]{24}\/?$/,
};
const NOTE_ID_IN_PATH = /^\/(?:explore|discovery\/item)\/([0-9a-f]{24})/;

/**
 * Watermark-free image: for `notes_pre_post` images rebuild the URL from the file id (last path segment up
 * to "!") on ci.xiaohongshu.com; other URLs are kept as they are (research/video.md §3 "Watermark").
 */
export function imageUrl(urlDefault: string): string {
  if (!urlDefault.includes('notes_pre_post')) return urlDefault;
  const path = urlDefault.split('?')[0];
  const fileId = path.slice(path.lastIndexOf('/') + 1).split('!')[0];
  if (!fileId) return urlDefault;
  const spectrum = urlDefault.includes('/spectrum/') ? 'spectrum/' : '';
  return `https://ci.xiaohongshu.com/notes_pre_post/${spectrum}${fileId}?imageView2/format/jpg`;
}

/** h264 master first, then h265, then the original upload built from originVideoKey. */
function videoUrl(video: unknown): string | null {
  return (
    str(at(video, 'media', 'stream', 'h264', 0, 'masterUrl')) ??
    str(at(video, 'media', 'stream', 'h265', 0, 'masterUrl')) ??
    (() => {
      const key = str(at(video, 'consumer', 'originVideoKey'));
      return key ? `https://sns-video-bd.xhscdn.com/${key}` : null;
    })()
  );
}

export function noteToData(n: JsonRecord, id: string): PluginOutcome<JiexiData> {
  const images = arr(n.imageList)
    .map((img) => str(at(img, 'urlDefault')))
    .filter((u): u is string => u !== null)
    .map(imageUrl);
  const isVideo = n.type === 'video';
  const url = isVideo ? videoUrl(n.video) : null;
  if (isVideo && !url) return fail('UPSTREAM_FAILED', 'Xiaohongshu note page: video note without a stream URL (changed shape).');
  if (!isVideo && images.length === 0) return fail('UPSTREAM_FAILED', 'Xiaohongshu note page: note has neither video nor images (changed shape).');
  // capa.duration is seconds in the notes seen; absent on image notes.
  const duration = num(at(n, 'video', 'capa', 'duration'));
  return {
    ok: true,
    data: {
      platform: 'xiaohongshu',
      id: str(n.noteId) ?? id,
      type: isVideo ? 'video' : 'images',
      title: str(n.title) ?? str(n.desc) ?? '',
      cover: images[0] ?? null,
      url,
      images: isVideo ? [] : images,
      author: { id: str(at(n, 'user', 'userId')), name: str(at(n, 'user', 'nickname')), avatar: str(at(n, 'user', 'avatar')) },
      duration: isVideo && duration !== null && duration > 0 ? duration : null,
      music: null,
    },
  };
}

async function parse(url: string, host: Host): Promise<PluginOutcome<JiexiData>> {
  const parts = parseUrl(url);
  const shape = parts ? LINK_SHAPES[parts.host] : undefined;
  if (!parts || !shape || !shape.test(parts.path)) return fail('UNSUPPORTED', 'Not a Xiaohongshu note link.');
  const target = `https://${parts.host}${parts.path}${parts.query ? `?${parts.query}` : ''}`;
  const got = await fetchStep(host, 'Xiaohongshu note page', target, { headers: { 'User-Agent': DESKTOP_CHROME_UA, Accept: HTML_ACCEPT } });
  if (!got.ok) return got;
  const res = got.value;
  if (res.status === 418 || res.status === 412) return fail('UPSTREAM_FAILED', `Xiaohongshu note page: throttled (HTTP ${res.status}).`);
  if (res.status === 404) return fail('NOT_FOUND', 'Xiaohongshu: the note does not exist (HTTP 404).');
  if (res.status !== 200) return fail('UPSTREAM_FAILED', `Xiaohongshu note page: HTTP ${res.status}.`);
  const final = parseUrl(res.url);
  const landed = checkLanding(final?.host ?? '', final?.path ?? '');
  if (landed) return landed;
  if (res.body.trim() === '') return fail('UPSTREAM_FAILED', 'Xiaohongshu note page: empty body.');
  const state = parseStateScript(res.body, '__INITIAL_STATE__');
  if (!state.ok) return fail('UPSTREAM_FAILED', `Xiaohongshu note page: ${state.detail} (anti-bot page or changed layout).`);
  const note = rec(at(state.value, 'note'));
  const map = rec(at(note, 'noteDetailMap'));
  if (!note || !map) return fail('UPSTREAM_FAILED', 'Xiaohongshu note page: __INITIAL_STATE__ has no note.noteDetailMap (changed shape).');
  const pathId = NOTE_ID_IN_PATH.exec(final?.path ?? '')?.[1] ?? null;
  let id = str(note.currentNoteId);
  if (id === 'undefined') id = null;
  if (id === null && pathId && pathId in map) id = pathId;
  if (id === null) return fail('NOT_FOUND', 'Xiaohongshu: the share link has expired (note.currentNoteId is undefined); share the note again.');
  const n = rec(at(map, id, 'note'));
  if (!n || Object.keys(n).length === 0) {
    const noToken = final && queryParam(final.query, 'xsec_token') === null ? ' The link has no xsec_token: paste the share link instead.' : '';
    return fail('NOT_FOUND', `Xiaohongshu: the note is not publicly visible (login-only, removed or restricted).${noToken}`);
  }
  return noteToData(n, id);
}

/** Where the redirects ended: off the site, on the 404 page, or on the login/captcha wall. */
function checkLanding(finalHost: string, finalPath: string): PluginFailure | null {
  if (finalHost !== PAGE_HOST) return fail('UPSTREAM_FAILED', `Xiaohongshu share link: redirected to ${finalHost || 'an invalid URL'} instead of the note page.`);
  if (/^\/404\b/.test(finalPath)) return fail('NOT_FOUND', 'Xiaohongshu: the note does not exist or was removed.');
  if (/^\/website-login\b/.test(finalPath)) return fail('UPSTREAM_FAILED', 'Xiaohongshu note page: login/captcha wall (anti-bot).');
  return null;
}

export const xiaohongshu: PlatformModule = {
  id: 'xiaohongshu',
  label: '小红书',
  linkHosts: Object.keys(LINK_SHAPES),
  fetchHosts: Object.keys(LINK_SHAPES),
  parse,
};
