// Quotas and spending caps reset at midnight China time (UTC+8), the day users and upstream providers count in.
const OFFSET_MS = 8 * 3600 * 1000;

const DAY_MS = 24 * 3600 * 1000;
/** Every quota call asks; the answer changes once a day, so the last one is kept with the day it belongs to. */
let last = { start: 0, end: 0, day: '' };

export function chinaDay(now = Date.now()): string {
  if (now >= last.start && now < last.end) return last.day;
  const start = chinaDayStart(now);
  last = { start, end: start + DAY_MS, day: new Date(now + OFFSET_MS).toISOString().slice(0, 10) };
  return last.day;
}

/** Epoch ms of the start of the China day containing `now`. */
export function chinaDayStart(now = Date.now()): number {
  return Math.floor((now + OFFSET_MS) / DAY_MS) * DAY_MS - OFFSET_MS;
}
