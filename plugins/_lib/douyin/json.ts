// Narrowing helpers for upstream JSON. Douyin's aweme struct varies by endpoint and over time, so the mapper
// reads it field by field through these instead of trusting a declared interface.

export type Json = Record<string, unknown>;

export function obj(v: unknown): Json | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined;
}

export function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/** A non-empty string, else null. */
export function str(v: unknown): string | null {
  return typeof v === 'string' && v !== '' ? v : null;
}

/** A finite number (numeric strings accepted: some endpoints send counts as strings), else null. */
export function num(v: unknown): number | null {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v)) return Number(v);
  return null;
}

/** Follows a dotted path through nested objects ("video.play_addr"). */
export function at(v: unknown, path: string): unknown {
  let cur: unknown = v;
  for (const key of path.split('.')) {
    const o = obj(cur);
    if (!o) return undefined;
    cur = o[key];
  }
  return cur;
}

/** The URL list of a Douyin `{uri, url_list[]}` address object. */
export function urlList(addr: unknown): string[] {
  return arr(obj(addr)?.url_list).filter((u): u is string => typeof u === 'string' && u !== '');
}

/** First URL of an address object, or null. */
export function firstUrl(addr: unknown): string | null {
  return urlList(addr)[0] ?? null;
}

/** Parses JSON without throwing; undefined when the text is not JSON. */
export function tryParseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
