// host.fetch: the plugins' only way out. Enforces the manifest's host allow-list and the address policy on
// every redirect hop, caps the response size, honours the call's abort signal (deadline) and an optional proxy.
import { isIP } from 'node:net';
import { isAllowedHost, isForbiddenAddress, type Resolver } from './address-policy.js';
import type { HostFetchInit, HostFetchResponse } from './contract.js';

export const DEFAULT_MAX_RESPONSE_BYTES = 5 * 1024 * 1024;
const MAX_REDIRECTS = 8;

export interface FetchPolicy {
  plugin: string;
  allowHosts: readonly string[];
  maxResponseBytes: number;
  resolver: Resolver;
  /** Aborted when the call's deadline passes: every pending request stops at once. */
  signal: AbortSignal;
  /** Called as requests start and settle, so the sandbox knows whether a call is waiting on the network. */
  onPending?: (delta: 1 | -1) => void;
  /** Alternative fetch (e.g. undici's with a ProxyAgent for HTTPS_PROXY). Defaults to the global fetch. */
  fetchImpl?: typeof fetch;
}

/** Raised for every refusal or failure; `kind` lets the sandbox map an escaped error to an error code. */
export class HostFetchError extends Error {
  constructor(
    readonly kind: 'refused' | 'failed' | 'timeout',
    message: string,
  ) {
    super(`fetch ${kind === 'timeout' ? 'timed out' : kind}: ${message}`);
  }
}

async function checkUrl(raw: string, policy: FetchPolicy): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new HostFetchError('refused', `not a valid URL: ${raw.slice(0, 200)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new HostFetchError('refused', `scheme ${url.protocol} is not allowed`);
  }
  if (url.username || url.password) throw new HostFetchError('refused', 'credentials in URLs are not allowed');
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(hostname)) {
    // Literal addresses are never on an allow-list of names; say the more useful reason when it is private.
    const why = isForbiddenAddress(hostname) ? 'is a private or reserved address' : 'is not on the allow-list';
    throw new HostFetchError('refused', `${hostname} ${why} of plugin ${policy.plugin}`);
  }
  if (!isAllowedHost(hostname, policy.allowHosts)) {
    throw new HostFetchError('refused', `host ${hostname} is not on the allow-list of plugin ${policy.plugin}`);
  }
  let addresses: string[];
  try {
    addresses = await policy.resolver(hostname);
  } catch (err) {
    throw new HostFetchError('failed', `cannot resolve ${hostname}: ${(err as Error).message}`);
  }
  if (addresses.length === 0) throw new HostFetchError('failed', `${hostname} has no addresses`);
  const bad = addresses.find(isForbiddenAddress);
  if (bad) throw new HostFetchError('refused', `${hostname} resolves to private or reserved address ${bad}`);
  return url;
}

async function readCapped(res: Response, cap: number, signal: AbortSignal): Promise<string> {
  const declared = Number(res.headers.get('content-length') ?? '0');
  if (declared > cap) throw new HostFetchError('refused', `response of ${declared} bytes is over the cap of ${cap}`);
  if (!res.body) return '';
  const reader = res.body.getReader();
  // Not every body source stops on the fetch signal once headers are in (mocks, some dispatchers): a deadline
  // must still end a slow body, so cancel the reader ourselves.
  const onAbort = (): void => void reader.cancel().catch(() => undefined);
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    return await readChunks(reader, cap, signal);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

async function readChunks(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  cap: number,
  signal: AbortSignal,
): Promise<string> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (signal.aborted) throw new HostFetchError('timeout', 'the response body did not arrive in time');
    if (done) break;
    total += value.byteLength;
    if (total > cap) {
      await reader.cancel().catch(() => undefined);
      throw new HostFetchError('refused', `response body is over the cap of ${cap} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, total).toString('utf8');
}

function headersOf(res: Response): { headers: Record<string, string>; cookies: string[] } {
  const headers: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    if (name !== 'set-cookie') headers[name] = value;
  });
  const cookies = res.headers.getSetCookie();
  if (cookies.length) headers['set-cookie'] = cookies.join(', ');
  return { headers, cookies };
}

/**
 * Settles with `p`, or rejects as soon as `signal` aborts, whichever comes first. The deadline must not depend
 * on the fetch implementation honouring its signal promptly (a proxy dispatcher or a test interceptor may
 * not); a result that arrives after the abort is discarded, and a late Response's body is cancelled.
 */
function raceAbort<T>(p: Promise<T>, signal: AbortSignal, onAbort: () => HostFetchError): Promise<T> {
  const discard = (v: unknown): void => {
    if (v instanceof Response) void v.body?.cancel().catch(() => undefined);
  };
  if (signal.aborted) {
    p.then(discard, () => undefined);
    return Promise.reject(onAbort());
  }
  return new Promise<T>((resolve, reject) => {
    const abort = (): void => {
      p.then(discard, () => undefined);
      reject(onAbort());
    };
    signal.addEventListener('abort', abort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', abort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', abort);
        reject(e);
      },
    );
  });
}

export async function hostFetch(
  rawUrl: string,
  init: HostFetchInit | undefined,
  policy: FetchPolicy,
): Promise<HostFetchResponse> {
  const follow = (init?.redirect ?? 'follow') === 'follow';
  const doFetch = policy.fetchImpl ?? fetch;
  const signal = init?.timeout_ms
    ? AbortSignal.any([policy.signal, AbortSignal.timeout(init.timeout_ms)])
    : policy.signal;
  let method = (init?.method ?? 'GET').toUpperCase();
  let body = init?.body;
  const redirects: string[] = [];
  let current = rawUrl;
  policy.onPending?.(1);
  try {
    for (;;) {
      const url = await checkUrl(current, policy);
      let res: Response;
      try {
        res = await raceAbort(
          doFetch(url, { method, headers: init?.headers, body, redirect: 'manual', signal }),
          signal,
          () => new HostFetchError('timeout', `${url.host} did not answer in time`),
        );
      } catch (err) {
        if (signal.aborted) throw new HostFetchError('timeout', `${url.host} did not answer in time`);
        const cause = (err as { cause?: { message?: string } }).cause?.message;
        throw new HostFetchError('failed', `${url.host}: ${cause ?? (err as Error).message}`);
      }
      const location = res.headers.get('location');
      if (follow && res.status >= 300 && res.status < 400 && location) {
        await res.body?.cancel().catch(() => undefined);
        if (redirects.length >= MAX_REDIRECTS)
          throw new HostFetchError('failed', `more than ${MAX_REDIRECTS} redirects`);
        redirects.push(url.href);
        current = new URL(location, url).href;
        if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === 'POST')) {
          method = 'GET';
          body = undefined;
        }
        continue;
      }
      let text: string;
      try {
        text = await readCapped(res, policy.maxResponseBytes, signal);
      } catch (err) {
        if (err instanceof HostFetchError) throw err;
        if (signal.aborted) throw new HostFetchError('timeout', `${url.host} did not finish in time`);
        throw new HostFetchError('failed', `${url.host}: ${(err as Error).message}`);
      }
      const { headers, cookies } = headersOf(res);
      return { status: res.status, url: url.href, headers, set_cookies: cookies, body: text, redirects };
    }
  } finally {
    policy.onPending?.(-1);
  }
}
