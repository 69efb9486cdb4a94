// Shared plumbing for the platform modules: a fetch that turns host rejections into outcomes naming the step,
// and small constructors for failures. Every message says which platform and which step failed, because the
// caller sees it as is and "UPSTREAM_FAILED" alone does not tell anyone where to look; the host's technical reason
// travels beside it as the operator's `detail`.
import type {
  Host,
  HostFetchInit,
  HostFetchResponse,
  PluginErrorCode,
  PluginFailure,
} from '../../core/sandbox/contract.js';
import { errorText, isFetchTimeout } from '../_lib/failure.js';

export type Step<T> = { ok: true; value: T } | PluginFailure;

const CJK = /[\u4e00-\u9fff]/;

/**
 * A message written "中文 (English…)" as its two halves: the Chinese before the first "(" that opens English text,
 * and the English inside its matching ")" plus what follows; null when the message is not written so.
 */
function bilingual(message: string): { zh: string; en: string } | null {
  const open = message.search(/\((?=[A-Za-z])/);
  if (open <= 0 || !CJK.test(message.slice(0, open))) return null;
  let depth = 0;
  for (let i = open; i < message.length; i++) {
    if (message[i] === '(') depth++;
    else if (message[i] === ')' && --depth === 0) {
      const en = `${message.slice(open + 1, i)}${message.slice(i + 1)}`.trim();
      const zh = message
        .slice(0, open)
        .trim()
        .replace(/[:：]$/, '');
      return { zh, en: `${en.charAt(0).toUpperCase()}${en.slice(1)}` };
    }
  }
  return null;
}

/**
 * A failure. Messages that carry both languages ("中文 (English)") are split into `message_zh` and `message`, so
 * the gateway answers each caller wholly in its own language instead of dropping the mixed text; `zh`, when
 * given, is the Chinese of an English `message`; `detail`, the operator's technical reason (never shown).
 */
export function fail(code: PluginErrorCode, message: string, zh?: string, detail?: string): PluginFailure {
  const both = zh === undefined ? bilingual(message) : { en: message, zh };
  const out: PluginFailure = both
    ? { ok: false, code, message: both.en, message_zh: both.zh }
    : { ok: false, code, message };
  if (detail !== undefined) out.detail = detail;
  return out;
}

/** A step of a platform's protocol, named in both languages for the caller. */
export interface StepName {
  en: string;
  zh: string;
}

/**
 * Maps a rejection of host.fetch to a failure naming the step in both languages; the host's own reason (host
 * name, errno) is the operator's `detail` only.
 */
export function fetchFailure(err: unknown, where: StepName): PluginFailure {
  const reason = errorText(err);
  return isFetchTimeout(reason)
    ? fail(
        'UPSTREAM_TIMEOUT',
        `${where.en} request timed out, please retry later`,
        `${where.zh}请求超时，请稍后重试`,
        reason,
      )
    : fail(
        'UPSTREAM_FAILED',
        `${where.en} request failed, please retry later`,
        `${where.zh}请求失败，请稍后重试`,
        reason,
      );
}

/** host.fetch that never throws. `where` is e.g. { en: 'Kuaishou share page', zh: '快手分享页' }. */
export async function fetchStep(
  host: Host,
  where: StepName,
  url: string,
  init: HostFetchInit,
): Promise<Step<HostFetchResponse>> {
  try {
    return { ok: true, value: await host.fetch(url, init) };
  } catch (err) {
    return fetchFailure(err, where);
  }
}

// A comma that starts a new cookie ("…; path=/, didv=1; …") as opposed to the one inside an Expires date
// ("Expires=Wed, 21 Oct 2026 …"): some stacks hand several Set-Cookie headers over joined into one line.
const COOKIE_SEPARATOR = /,(?=\s*[A-Za-z0-9_!#$%&'*+.^`|~-]+=)/;

/** Set-Cookie lines of a response as a Cookie request header value (name=value pairs only), or null. */
export function cookieHeader(setCookies: readonly string[]): string | null {
  const pairs = setCookies
    .flatMap((line) => line.split(COOKIE_SEPARATOR))
    .map((line) => line.split(';')[0].trim())
    .filter((p) => p.includes('='));
  return pairs.length ? pairs.join('; ') : null;
}

/** A header of a response (names are lower-cased by the host). */
export function header(res: HostFetchResponse, name: string): string | null {
  const v = res.headers[name.toLowerCase()];
  return v === undefined || v === '' ? null : v;
}

export function isRedirect(status: number): boolean {
  return status >= 300 && status < 400;
}
