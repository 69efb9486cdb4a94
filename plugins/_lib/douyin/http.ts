// Request headers and the mapping of host.fetch rejections. Every Douyin request goes out with an iPhone
// Safari UA: a desktop UA gets the JSVMP anti-bot page instead of the share page.
import type { Host, HostFetchInit, HostFetchResponse } from '../../../core/sandbox/contract.js';
import { errorText, isFetchTimeout } from '../failure.js';

export const IPHONE_UA =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) ' +
  'Version/17.5 Mobile/15E148 Safari/604.1';

export const MOBILE_HEADERS: Record<string, string> = {
  'User-Agent': IPHONE_UA,
  Accept: 'text/html,application/xhtml+xml,application/json;q=0.9,*/*;q=0.8',
  'Accept-Language': 'zh-CN,zh;q=0.9',
};

/**
 * A fetch's result. On failure `reason` names the step for the caller ("share page request failed") and `detail`
 * is the host's own text (host name, errno) for the operator only (PluginFailure.detail, never shown).
 */
export type Fetched =
  | { ok: true; res: HostFetchResponse }
  | { ok: false; timeout: boolean; reason: string; detail: string };

/**
 * host.fetch that never throws. A rejection becomes a reason naming the step; "fetch timed out:" is kept
 * apart because it maps to UPSTREAM_TIMEOUT rather than UPSTREAM_FAILED.
 */
export async function fetchStep(host: Host, step: string, url: string, init: HostFetchInit): Promise<Fetched> {
  try {
    return { ok: true, res: await host.fetch(url, init) };
  } catch (err) {
    const detail = errorText(err);
    const timeout = isFetchTimeout(detail);
    return { ok: false, timeout, reason: timeout ? `${step} timed out` : `${step} request failed`, detail };
  }
}

/** Location of a 3xx answer, or null. */
export function redirectTarget(res: HostFetchResponse): string | null {
  return res.status >= 300 && res.status < 400 ? (res.headers.location ?? null) : null;
}
