// Shared plumbing for the platform modules: a fetch that turns host rejections into outcomes naming the step,
// and small constructors for failures. Every message says which platform and which step failed, because the
// caller sees it as is and "UPSTREAM_FAILED" alone does not tell an operator where to look.
import type {
  Host,
  HostFetchInit,
  HostFetchResponse,
  PluginErrorCode,
  PluginFailure,
} from '../../core/sandbox/contract.js';

export type Step<T> = { ok: true; value: T } | PluginFailure;

export function fail(code: PluginErrorCode, message: string): PluginFailure {
  return { ok: false, code, message };
}

/** Maps a rejection of host.fetch: "fetch timed out:" means the deadline or per-request timeout passed. */
export function fetchFailure(err: unknown, where: string): PluginFailure {
  const message = err instanceof Error ? err.message : String(err);
  if (message.startsWith('fetch timed out:')) return fail('UPSTREAM_TIMEOUT', `${where}: ${message}`);
  return fail('UPSTREAM_FAILED', `${where}: ${message}`);
}

/** host.fetch that never throws. `where` is e.g. "Kuaishou share page". */
export async function fetchStep(
  host: Host,
  where: string,
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
