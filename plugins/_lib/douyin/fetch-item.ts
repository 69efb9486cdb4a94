// Gets the aweme struct for one id, trying the known sources in order and saying in the error which step
// failed how. The order and every way out:
//   1. slidesinfo ?aweme_ids=[id]                  item -> done; filter entry / status deleted|private -> NOT_FOUND;
//                                                  empty aweme_details -> 1b; empty body, status_code != 0,
//                                                  bad JSON, HTTP error -> 2 (reason kept)
//   1b. slidesinfo …&request_source=200 (image/slides posts need it)   same verdicts; still empty -> 2
//   2. share page _ROUTER_DATA videoInfoRes (gone since 2026-08, kept for pages that still embed it)
//                                                  item -> done; filter_list -> NOT_FOUND; page without
//                                                  videoInfoRes / anti-bot page -> failed
//   Both empty -> NOT_FOUND; anything else -> UPSTREAM_FAILED "<slidesinfo reason>; <share page reason>";
//   a timeout at either step -> UPSTREAM_TIMEOUT.
// The H5 reflow iteminfo API (PV-Go's fix) is not tried: it needs AES-128-CBC in pure TS.

import type { Host, PluginOutcome } from '../../../core/sandbox/contract.js';
import { failure } from '../failure.js';
import type { Json } from './json.js';
import { fromSharePage, fromSlidesinfo, type SourceVerdict } from './sources.js';

const TIMED_OUT = '抖音：请求超时，请稍后重试';
const gone = (id: string): string => `抖音：作品 ${id} 已删除或不公开`;

/** The operator's reasons of the failed fetches among `verdicts` (never shown to the caller), or undefined. */
function details(...verdicts: SourceVerdict[]): string | undefined {
  const found = verdicts.flatMap((v) => (v.kind === 'failed' && v.detail ? [`${v.reason}: ${v.detail}`] : []));
  return found.length ? found.join('; ') : undefined;
}

function timedOut(v: SourceVerdict): v is Extract<SourceVerdict, { kind: 'failed' }> {
  return v.kind === 'failed' && v.timeout;
}

export async function fetchAweme(id: string, host: Host): Promise<PluginOutcome<Json>> {
  const slides = await fromSlidesinfo(id, host);
  if (slides.kind === 'item') return { ok: true, data: slides.item };
  if (slides.kind === 'gone') {
    return failure('NOT_FOUND', `douyin: post ${id} is deleted or private (${slides.reason})`, gone(id));
  }
  // The deadline is shared by the whole call: once one step ran out of time the next cannot finish either.
  if (timedOut(slides)) return failure('UPSTREAM_TIMEOUT', `douyin: ${slides.reason}`, TIMED_OUT, details(slides));

  const page = await fromSharePage(id, host);
  if (page.kind === 'item') return { ok: true, data: page.item };
  if (timedOut(page)) {
    return failure('UPSTREAM_TIMEOUT', `douyin: ${slides.reason}; ${page.reason}`, TIMED_OUT, details(slides, page));
  }
  if (page.kind === 'gone') {
    return failure('NOT_FOUND', `douyin: post ${id} is deleted or private (${page.reason})`, gone(id));
  }
  // Only when both sources answered well-formed and neither has the post is it "not found". An empty
  // slidesinfo next to a broken share page stays UPSTREAM_FAILED: an empty list is also how a request
  // Douyin dislikes can look, and a 404 would be cached and shown to the caller as final.
  if (slides.kind === 'empty' && page.kind === 'empty') {
    return failure('NOT_FOUND', `douyin: post ${id} does not exist or is private`, `抖音：作品 ${id} 不存在或不公开`);
  }
  return failure(
    'UPSTREAM_FAILED',
    `douyin: ${slides.reason}; ${page.reason}`,
    `抖音：未能获取作品 ${id}，请稍后重试`,
    details(slides, page),
  );
}
