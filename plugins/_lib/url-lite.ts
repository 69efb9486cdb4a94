// URL helpers for plugin code. The isolate has no WHATWG URL/URLSearchParams, so links are taken apart with
// regexes. This is deliberately small: share links are http(s) with a host name, which is all plugins need.

export interface UrlParts {
  scheme: 'http' | 'https';
  /** Lower-cased, without port or trailing dot. */
  host: string;
  /** Always starts with "/" ("/" when the URL has no path). */
  path: string;
  /** Without the leading "?"; "" when absent. */
  query: string;
}

// The path group must start with "/": otherwise "https://v.douyin.com@evil.example/" would parse with host
// v.douyin.com and a path of "@evil.example/" while a real URL parser sends it to evil.example.
const URL_RE = /^(https?):\/\/([^/?#:@\s]+)(?::\d{1,5})?(\/[^?#\s]*)?(?:\?([^#\s]*))?(?:#\S*)?$/i;

/** Splits an absolute http(s) URL; null for anything else (relative, other schemes, user-info, spaces). */
export function parseUrl(raw: string): UrlParts | null {
  const m = URL_RE.exec(raw.trim());
  if (!m) return null;
  const host = m[2].toLowerCase().replace(/\.$/, '');
  if (!/^[a-z0-9.-]+$/.test(host)) return null;
  return {
    scheme: m[1].toLowerCase() as 'http' | 'https',
    host,
    path: m[3] || '/',
    query: m[4] ?? '',
  };
}

/** Value of the first `name=` parameter in a query string (percent-decoded when possible), or null. */
export function queryParam(query: string, name: string): string | null {
  for (const pair of query.split('&')) {
    const eq = pair.indexOf('=');
    const key = eq < 0 ? pair : pair.slice(0, eq);
    if (key !== name) continue;
    const value = eq < 0 ? '' : pair.slice(eq + 1);
    try {
      return decodeURIComponent(value.replace(/\+/g, ' '));
    } catch {
      return value; // a stray "%" must not make the whole link unusable
    }
  }
  return null;
}

/** Resolves a redirect target (absolute, protocol-relative or root-relative) against the URL that sent it. */
export function resolveLocation(location: string, base: UrlParts): string {
  const loc = location.trim();
  if (/^https?:\/\//i.test(loc)) return loc;
  if (loc.startsWith('//')) return `${base.scheme}:${loc}`;
  if (loc.startsWith('/')) return `${base.scheme}://${base.host}${loc}`;
  const dir = base.path.slice(0, base.path.lastIndexOf('/') + 1);
  return `${base.scheme}://${base.host}${dir}${loc}`;
}

// Share texts glue the link to Chinese text and full-width punctuation ("…/a/XXXX，复制本条信息"), so a URL
// ends at whitespace or at the first non-ASCII character; printable ASCII is \x21-\x7e.
const URL_IN_TEXT_RE = /https?:\/\/[\x21-\x7e]+/gi;

/** Every http(s) URL in a pasted share text, in order, with trailing sentence punctuation removed. */
export function extractUrls(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(URL_IN_TEXT_RE)) {
    const url = m[0].replace(/[.,;)]+$/, '');
    if (parseUrl(url)) found.push(url);
  }
  return found;
}

/** Does `host` match one of the patterns ("a.com" exact, "*.a.com" any sub-domain, not a.com itself)? */
export function hostMatches(host: string, patterns: readonly string[]): boolean {
  const h = host.toLowerCase();
  return patterns.some((p) => {
    const pattern = p.toLowerCase();
    return pattern.startsWith('*.') ? h.endsWith(pattern.slice(1)) && h.length > pattern.length - 1 : h === pattern;
  });
}
