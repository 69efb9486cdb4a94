// Shared pieces of the kuaid tests: fixtures, credentials, request capture and sign recomputation.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PluginOutcome } from '../../../core/sandbox/contract.js';
import { HostFetchError } from '../../../core/sandbox/host-fetch.js';
import { plugin } from '../../../plugins/kuaid/handler.js';
import type { KuaidInput } from '../../../plugins/kuaid/input.js';
import { clearMemo } from '../../../plugins/kuaid/memo.js';
import type { KuaidDetectData, KuaidTrackData } from '../../../plugins/kuaid/normalise.js';
import { createDirectHost, type DirectHost } from '../../helpers/direct-host.js';

const here = dirname(fileURLToPath(import.meta.url));

export const K100 = { customer: 'C0FFEE1234567890', key: 'k100-secret-key' };
export const KDN = { businessId: '1237100', apiKey: '56da2cf8-c8a2-44b2-b6fa-476cd7d1ba17' };

export const K100_OPTIONS = { providers: ['kuaidi100'], kuaidi100_customer: K100.customer, kuaidi100_key: K100.key };
export const KDN_OPTIONS = { providers: ['kdniao'], kdniao_business_id: KDN.businessId, kdniao_api_key: KDN.apiKey };
export const BOTH_OPTIONS = { ...K100_OPTIONS, ...KDN_OPTIONS, providers: ['kuaidi100', 'kdniao'] };

export function fixture(name: string): string {
  return readFileSync(join(here, 'fixtures', name), 'utf8');
}

export function fixtureJson(name: string): Record<string, unknown> {
  return JSON.parse(fixture(name)) as Record<string, unknown>;
}

export const md5 = (s: string): string => createHash('md5').update(s, 'utf8').digest('hex');

/** What a nock reply callback saw of one request. */
export interface Seen {
  url: string;
  method: string;
  body: string;
  headers: Record<string, string>;
}

/** nock 15 hands reply functions a fetch Request: keep what the assertions need. */
export async function capture(request: Request, seen: Seen[]): Promise<void> {
  seen.push({
    url: request.url,
    method: request.method,
    body: await request.text(),
    headers: Object.fromEntries(request.headers),
  });
}

/** 2024-06-10T12:00:00+08:00 */
export const NOW = Date.UTC(2024, 5, 10, 4, 0, 0);

export type Run = PluginOutcome<KuaidTrackData | KuaidDetectData> & { host: DirectHost };

export interface RunOptions {
  operation?: string;
  /** host.now() for this call (default NOW). */
  now?: number;
  /** Keep the isolate-scope caches (memo.ts) from the previous call, as a warm isolate would. */
  keepMemo?: boolean;
  /**
   * Hosts that time out. nock's delay() does not honour the fetch abort signal, so a slow upstream is played
   * by raising the host's own timeout error (HostFetchError 'timeout', "fetch timed out: ...") instead.
   */
  slowHosts?: string[];
  /** host.pin: a canary's probe pinned to one provider. */
  pin?: string;
}

export async function runKuaid(
  input: KuaidInput,
  options: Record<string, unknown>,
  run: RunOptions = {},
): Promise<Run> {
  if (!run.keepMemo) clearMemo();
  const host = createDirectHost({ plugin: 'kuaid', operation: run.operation ?? 'kuaid', options, now: run.now ?? NOW });
  if (run.pin !== undefined) Object.assign(host, { pin: run.pin });
  const realFetch = host.fetch;
  host.fetch = async (url, init) => {
    const name = new URL(url).hostname;
    if (run.slowHosts?.includes(name)) throw new HostFetchError('timeout', `${name} did not answer in time`);
    return realFetch(url, init);
  };
  try {
    const out = await plugin.run(input, host);
    return Object.assign(out, { host });
  } finally {
    host.dispose();
  }
}

/** Narrow to a track success or fail the test with the outcome in the message. */
export function trackData(out: Run): KuaidTrackData {
  if (!out.ok) throw new Error(`expected success, got ${out.code}: ${out.message}`);
  return out.data as KuaidTrackData;
}

export function detectData(out: Run): KuaidDetectData {
  if (!out.ok) throw new Error(`expected success, got ${out.code}: ${out.message}`);
  return out.data as KuaidDetectData;
}

/** The form fields of a captured body, decoded once (as a server does). */
export function formFields(body: string): Record<string, string> {
  return Object.fromEntries(new URLSearchParams(body));
}
