// Finds the link to parse in whatever the user pasted: a bare link, or a whole share text such as
//   7.66 复制打开抖音，看看【...】 https://v.douyin.com/xxxx/ ...
//   ... http://xhslink.com/a/zGL52ubtpJ20，复制本条信息…          (full-width comma glued to the URL)
//   https://v.kuaishou.com/13x0B9e 标题 "#话题 点击链接…
//   【<标题>-哔哩哔哩】 https://b23.tv/<7 chars>
// The first link whose host belongs to a platform module wins; links to other hosts are skipped, never fetched.
// URL extraction (stop at whitespace / non-ASCII, strip trailing ".,;)") lives in _lib/url-lite.ts.
import { extractUrls, hostMatches, parseUrl, type UrlParts } from '../_lib/url-lite.js';
import type { PlatformModule } from './platform.js';

export interface FoundLink {
  /** Normalised link: scheme, lower-cased host, path and query (port, user-info and fragment dropped). */
  url: string;
  parts: UrlParts;
  module: PlatformModule;
}

/**
 * The link to parse, or why there is none. `refused` is set when the text had platform links but none that can
 * name a post (bare short-link host, profile page): the caller's mistake, INVALID_INPUT rather than UNSUPPORTED.
 */
export type LinkSearch = { ok: true; link: FoundLink } | { ok: false; reason: string; refused?: string };

/**
 * Is the host an IP literal in any spelling a URL parser accepts? WHATWG treats a host whose last label is
 * numeric (decimal "2130706433", hex "0x7f000001", octal "0177.0.0.1") as IPv4, and "[...]" as IPv6.
 */
export function isIpLiteralHost(host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  if (h.startsWith('[') || h.includes(':')) return true;
  const last = h.slice(h.lastIndexOf('.') + 1);
  return /^(?:\d+|0x[0-9a-f]*)$/.test(last);
}

/** The text of the UNSUPPORTED error: which platforms work, in Chinese and English, plus why this input failed. */
export function unsupportedMessage(modules: readonly PlatformModule[], why: string): string {
  const zh = modules.map((m) => m.label).join('、');
  const en = modules.map((m) => m.id.charAt(0).toUpperCase() + m.id.slice(1)).join(', ');
  return `目前支持: ${zh} (supported: ${en}). ${why}`;
}

function normalise(parts: UrlParts): string {
  return `${parts.scheme}://${parts.host}${parts.path}${parts.query ? `?${parts.query}` : ''}`;
}

/**
 * The first link in `text` that one of `modules` handles and that can name a post (a profile link pasted before
 * the post's link is passed over), or why there is none.
 */
export function findSupportedLink(text: string, modules: readonly PlatformModule[]): LinkSearch {
  const candidates = extractUrls(text);
  if (candidates.length === 0) return { ok: false, reason: 'No http(s) link found in the text.' };
  let firstOther: string | null = null;
  let firstRefused: string | null = null;
  for (const candidate of candidates) {
    const parts = parseUrl(candidate);
    // url-lite lets "host@other/..." through as a path without a leading "/": that is user-info, refuse it.
    if (!parts?.path.startsWith('/')) {
      firstOther ??= 'The link is malformed.';
      continue;
    }
    if (isIpLiteralHost(parts.host)) {
      firstOther ??= 'Links to IP addresses are not supported.';
      continue;
    }
    const module = modules.find((m) => hostMatches(parts.host, m.linkHosts));
    const refused = module ? module.refuseLink(parts) : null;
    if (module && !refused) return { ok: true, link: { url: normalise(parts), parts, module } };
    if (refused) firstRefused ??= refused;
    else firstOther ??= `Links of ${parts.host} are not supported.`;
  }
  if (firstRefused) return { ok: false, reason: firstRefused, refused: firstRefused };
  return { ok: false, reason: firstOther ?? 'No supported link found in the text.' };
}
