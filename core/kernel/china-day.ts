// Quotas and spending caps reset at midnight China time (UTC+8), the day users and upstream providers count in.
const OFFSET_MS = 8 * 3600 * 1000;

export function chinaDay(now = Date.now()): string {
  return new Date(now + OFFSET_MS).toISOString().slice(0, 10);
}

/** Epoch ms of the start of the China day containing `now`. */
export function chinaDayStart(now = Date.now()): number {
  const day = 24 * 3600 * 1000;
  return Math.floor((now + OFFSET_MS) / day) * day - OFFSET_MS;
}
