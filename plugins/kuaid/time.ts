// Provider times are Beijing wall-clock text with no zone ("2024-05-02 10:11:12", older Kdniao data
// "2019/06/25 08:05:37"); we return ISO 8601 with an explicit +08:00 so nobody has to guess the zone.

const BEIJING_OFFSET_MS = 8 * 3600 * 1000;
const TEXT = /^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?:[ T]+(\d{1,2}):(\d{1,2})(?::(\d{1,2}))?)?/;

const pad = (n: number): string => String(n).padStart(2, '0');

/** Provider time text -> "YYYY-MM-DDTHH:mm:ss+08:00"; null when it is not a date we can read. */
export function beijingIso(text: unknown): string | null {
  if (typeof text !== 'string') return null;
  const m = TEXT.exec(text.trim());
  if (!m) return null;
  const [y, mo, d, h, mi, s] = [m[1], m[2], m[3], m[4] ?? '0', m[5] ?? '0', m[6] ?? '0'].map(Number);
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 59) return null;
  return `${y}-${pad(mo)}-${pad(d)}T${pad(h)}:${pad(mi)}:${pad(s)}+08:00`;
}

/** Epoch milliseconds (host.now()) -> Beijing time as ISO 8601 with +08:00. */
export function isoFromEpoch(ms: number): string {
  // Shift by the offset and read the UTC fields: that is Beijing wall-clock time (no DST in China).
  return `${new Date(ms + BEIJING_OFFSET_MS).toISOString().slice(0, 19)}+08:00`;
}
