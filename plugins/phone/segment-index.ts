// Longest-prefix lookup over the segment table: at most three Map probes (5, 4, 3 digits), no scan.
import type { Said } from './normalise.js';
import { SEGMENTS, type SegmentRow } from './segments.js';

const BY_PREFIX: ReadonlyMap<string, SegmentRow> = new Map(SEGMENTS.map((row) => [row.prefix, row]));

/** 3-digit prefixes that are only partly allocated (e.g. 174, 141): used to word the "unknown segment" message. */
const PARTLY_ALLOCATED: ReadonlySet<string> = new Set(
  SEGMENTS.filter((row) => row.prefix.length > 3 && !BY_PREFIX.has(row.prefix.slice(0, 3))).map((row) =>
    row.prefix.slice(0, 3),
  ),
);

export function findSegment(digits: string): SegmentRow | undefined {
  return BY_PREFIX.get(digits.slice(0, 5)) ?? BY_PREFIX.get(digits.slice(0, 4)) ?? BY_PREFIX.get(digits.slice(0, 3));
}

/** Why no row matched, worded for the caller. */
export function unknownSegmentMessage(digits: string): Said {
  const three = digits.slice(0, 3);
  if (PARTLY_ALLOCATED.has(three)) {
    const five = digits.slice(0, 5);
    return {
      en: `unknown segment ${five}: only parts of ${three} are allocated to mobile operators`,
      zh: `未知号段 ${five}：${three} 号段只有部分分配给了移动运营商`,
    };
  }
  return {
    en: `unknown segment ${three}: not allocated to any mobile operator`,
    zh: `未知号段 ${three}：未分配给任何移动运营商`,
  };
}
