// Watermark-free addresses. The play_addr URL points at the watermarking endpoint (".../playwm/?video_id=");
// the same URL with "play" is the clean stream, and answering it with a 302 reveals the CDN mp4 address.
import type { Host } from '../../../core/sandbox/contract.js';
import { hostMatches, parseUrl } from '../url-lite.js';
import { fetchStep, MOBILE_HEADERS, redirectTarget } from './http.js';
import { urlList } from './json.js';
import { DOUYIN_FETCH_HOSTS } from './links.js';

const PLAY_REDIRECT_TIMEOUT_MS = 3000;

/** The play URL without watermark, before resolving its redirect. */
export function unwatermarked(playwmUrl: string): string {
  return playwmUrl.replace('playwm', 'play');
}

/**
 * Resolves the clean play URL to the CDN mp4 it redirects to. Best effort: without a Location (Xigua-in-Douyin
 * items answer 200) or on any failure the replaced URL is still a working, watermark-free address.
 */
export async function resolvePlayUrl(playUrl: string, host: Host): Promise<string> {
  const parts = parseUrl(playUrl);
  // Only ask hosts the manifests allow; any other host would just be a refused fetch.
  if (!parts || !hostMatches(parts.host, DOUYIN_FETCH_HOSTS) || parts.host === 'v.douyin.com') return playUrl;
  const got = await fetchStep(host, 'play address', playUrl, {
    headers: MOBILE_HEADERS,
    redirect: 'manual',
    // The post is already in hand: a slow redirect must not cost the whole call, the replaced URL will do.
    timeout_ms: PLAY_REDIRECT_TIMEOUT_MS,
  });
  if (!got.ok) {
    host.log('warn', 'douyin: could not resolve the play address, keeping it', {
      reason: got.reason,
      detail: got.detail,
    });
    return playUrl;
  }
  const location = redirectTarget(got.res);
  return location && parseUrl(location) ? location : playUrl;
}

/** Prefer an image URL that is not .webp: JPEG/PNG variants open everywhere, webp does not. */
export function pickImageUrl(image: unknown): string | null {
  const urls = urlList(image);
  const isWebp = (u: string): boolean => /\.webp(?:$|[?~])/i.test(u);
  return urls.find((u) => !isWebp(u)) ?? urls[0] ?? null;
}
