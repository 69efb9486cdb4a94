// The two known ways to get one aweme struct by id:
// the slidesinfo API (works since the 2026-08 change) and the share page's _ROUTER_DATA (worked before it).
// Each returns a verdict instead of throwing, so the caller can say which step failed and how.
import type { Host, HostFetchResponse } from '../../../core/sandbox/contract.js';
import { fetchStep, MOBILE_HEADERS } from './http.js';
import { arr, type Json, num, obj, str, tryParseJson } from './json.js';

export type SourceVerdict =
  | { kind: 'item'; item: Json }
  /** The source names the post as removed or hidden (share page filter_list): definitive. */
  | { kind: 'gone'; reason: string }
  /** A well-formed answer without the post: not found as far as this source can tell. */
  | { kind: 'empty'; reason: string }
  /** `detail`: the host's own text of a failed fetch, for the operator only (see http.ts). */
  | { kind: 'failed'; reason: string; timeout: boolean; detail?: string };

const SLIDES_URL = 'https://www.iesdouyin.com/web/api/v2/aweme/slidesinfo/?aweme_ids=%5B';
const SHARE_URL = 'https://www.iesdouyin.com/share/video/';

function failed(reason: string): SourceVerdict {
  return { kind: 'failed', reason, timeout: false };
}

/** Finds the entry for `id` in a list of aweme structs; an entry without aweme_id is trusted as the one asked for. */
function pickItem(list: unknown[], id: string): Json | undefined {
  const items = list.map(obj).filter((o): o is Json => o !== undefined);
  return items.find((o) => String(o.aweme_id ?? '') === id) ?? items.find((o) => o.aweme_id === undefined);
}

function readSlides(step: string, res: HostFetchResponse, id: string): SourceVerdict {
  if (res.status < 200 || res.status > 299) return failed(`${step} answered HTTP ${res.status}`);
  // A rejected (unsigned or over-signed) request is answered 200 with an empty body.
  if (res.body.trim() === '') return failed(`${step} returned an empty body`);
  const json = obj(tryParseJson(res.body));
  if (!json) return failed(`${step} returned unparsable JSON`);
  const status = num(json.status_code);
  if (status !== null && status !== 0) {
    const msg = str(json.status_msg);
    return failed(`${step} returned status_code ${status}${msg ? ` (${msg})` : ''}`);
  }
  if (!Array.isArray(json.aweme_details)) return failed(`${step} has no aweme_details (response shape changed)`);
  const filtered = filterReason(json, id);
  if (json.aweme_details.length === 0) {
    // The web APIs name a removed or hidden post in a filter list instead of returning it.
    return filtered ? { kind: 'gone', reason: filtered } : { kind: 'empty', reason: `${step} has no aweme_details` };
  }
  const item = pickItem(json.aweme_details, id);
  if (!item) return failed(`${step} returned a different post`);
  const removed = removedReason(item);
  return removed ? { kind: 'gone', reason: removed } : { kind: 'item', item };
}

/** `filter_list[]` / `filter_infos[]` / `filter_detail` entry for `id`: "filter_reason: detail_msg", or null. */
function filterReason(json: Json, id: string): string | null {
  const entries = [...arr(json.filter_list), ...arr(json.filter_infos), json.filter_detail]
    .map(obj)
    .filter((o): o is Json => o !== undefined);
  const entry = entries.find((f) => String(f.aweme_id ?? '') === id) ?? entries.find((f) => f.aweme_id === undefined);
  if (!entry) return null;
  const why = [str(entry.filter_reason), str(entry.detail_msg)].filter((s) => s !== null).join(': ');
  return why || 'filtered';
}

/** An item that is returned but flagged deleted or private by its own `status` block. */
function removedReason(item: Json): string | null {
  const status = obj(item.status);
  if (!status) return null;
  if (status.is_delete === true) return 'status.is_delete';
  if (status.is_prohibited === true) return 'status.is_prohibited';
  // private_status 1 = only the author can see it; the item then has no playable media for anyone else.
  if (num(status.private_status) === 1) return 'status.private_status 1 (private)';
  return null;
}

/** slidesinfo, retried once with request_source=200, which image (slides) posts need. */
export async function fromSlidesinfo(id: string, host: Host): Promise<SourceVerdict> {
  const url = `${SLIDES_URL}${id}%5D`;
  const first = await fetchStep(host, 'slidesinfo', url, { headers: MOBILE_HEADERS });
  if (!first.ok) return { kind: 'failed', reason: first.reason, timeout: first.timeout, detail: first.detail };
  const verdict = readSlides('slidesinfo', first.res, id);
  if (verdict.kind !== 'empty') return verdict;

  const step = 'slidesinfo with request_source=200';
  const retry = await fetchStep(host, step, `${url}&request_source=200`, { headers: MOBILE_HEADERS });
  if (!retry.ok) return { kind: 'failed', reason: retry.reason, timeout: retry.timeout, detail: retry.detail };
  const second = readSlides(step, retry.res, id);
  return second.kind === 'empty'
    ? { kind: 'empty', reason: 'slidesinfo has no aweme_details (also with request_source=200)' }
    : second;
}

const ROUTER_DATA_RE = /window\._ROUTER_DATA\s*=\s*([\s\S]*?)\s*;?\s*<\/script>/;

/** The share page's `_ROUTER_DATA` -> loaderData["video_(id)/page" | "note_(id)/page"].videoInfoRes. */
export async function fromSharePage(id: string, host: Host): Promise<SourceVerdict> {
  const got = await fetchStep(host, 'share page', `${SHARE_URL}${id}`, { headers: MOBILE_HEADERS });
  if (!got.ok) return { kind: 'failed', reason: got.reason, timeout: got.timeout, detail: got.detail };
  const res = got.res;
  if (res.status < 200 || res.status > 299) return failed(`share page answered HTTP ${res.status}`);
  if (res.body.trim() === '') return failed('share page returned an empty body');
  const m = ROUTER_DATA_RE.exec(res.body);
  // Desktop UAs and throttled IPs get a JSVMP / captcha page that boots from script and embeds no data.
  if (!m) return failed('share page has no _ROUTER_DATA (anti-bot or captcha page)');
  const loaderData = obj(obj(tryParseJson(m[1]))?.loaderData);
  if (!loaderData) return failed('share page _ROUTER_DATA is unparsable or has no loaderData');

  // The route key differs for videos and notes ("video_(id)/page", "note_(id)/page"); take whichever has data.
  const page = Object.entries(loaderData)
    .filter(([key]) => key.endsWith('/page'))
    .map(([, value]) => obj(obj(value)?.videoInfoRes))
    .find((v): v is Json => v !== undefined);
  // Since about 2026-08-08 the server-rendered page keeps loaderData but drops videoInfoRes.
  if (!page) return failed('share page has no videoInfoRes (page shape changed)');

  const item = pickItem(arr(page.item_list), id);
  if (item) return { kind: 'item', item };
  const filters = arr(page.filter_list)
    .map(obj)
    .filter((o): o is Json => o !== undefined);
  const filter = filters.find((f) => String(f.aweme_id ?? '') === id) ?? filters[0];
  if (filter) {
    const why = [str(filter.filter_reason), str(filter.detail_msg)].filter((s) => s !== null).join(': ');
    return { kind: 'gone', reason: why || 'filtered' };
  }
  return { kind: 'empty', reason: 'share page item_list is empty' };
}
