// Shared plumbing for provider calls: one fetch that turns host errors and HTTP failures into
// ProviderResult values, and a JSON reader that tolerates a BOM and reports a changed shape.
import type { Host, HostFetchInit, HostFetchResponse } from '../../../core/sandbox/contract.js';
import type { ProviderResult } from './types.js';

export type FetchFailure = Extract<ProviderResult, { kind: 'failed' | 'timeout' }>;
export type Fetched = { ok: true; body: string } | { ok: false; result: FetchFailure };

/** host.fetch that never throws: timeouts and failures come back as `timeout` / `failed` results. */
export async function fetchText(host: Host, label: string, url: string, init: HostFetchInit): Promise<Fetched> {
  let res: HostFetchResponse;
  try {
    res = await host.fetch(url, init);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    // The host's errors say what happened in their first words (see contract.ts Host.fetch).
    if (message.startsWith('fetch timed out:'))
      return { ok: false, result: { kind: 'timeout', detail: `${label} timed out` } };
    return { ok: false, result: { kind: 'failed', detail: `${label}: ${message}` } };
  }
  if (res.status < 200 || res.status >= 300) {
    return { ok: false, result: { kind: 'failed', detail: `${label} answered HTTP ${res.status}` } };
  }
  return { ok: true, body: res.body };
}

/** Parse a JSON body; undefined when it is not JSON (an HTML error page, a captcha, an empty body). */
export function parseJson(body: string): unknown {
  const text = body.replace(/^\uFEFF/, '').trim();
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A non-empty trimmed string, or null. */
export function text(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  const t = v.trim();
  return t ? t : null;
}

/** Provider messages can be long HTML or stack dumps: keep error text short and single-line. */
export function brief(v: unknown, max = 120): string {
  const s = typeof v === 'string' ? v : v === undefined || v === null ? '' : JSON.stringify(v);
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max)}…` : one;
}
