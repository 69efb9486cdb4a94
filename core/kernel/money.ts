// Money is integer micro-TOKEN (1 TOKEN = 1,000,000) below the HTTP edge. These are the only two crossings.
export const MICRO_PER_TOKEN = 1_000_000;
/** The largest amount any one request may name: 10^9 TOKEN = 10^15 micro, far below 2^53, so sums of many stay exact. */
export const MAX_TOKEN = 1_000_000_000;
export const MAX_MICRO = MAX_TOKEN * MICRO_PER_TOKEN;

/** TOKEN amount (number or decimal string, at most 6 decimals) -> micro-TOKEN. Throws on anything inexact. */
export function toMicro(amount: number | string): number {
  const text = typeof amount === 'number' ? amount.toFixed(7).replace(/0+$/, '').replace(/\.$/, '') : amount.trim();
  const m = /^(-)?(\d{1,10})(?:\.(\d{1,6}))?$/.exec(text);
  if (!m) throw new RangeError(`not a TOKEN amount with at most 6 decimals: ${String(amount)}`);
  const micro = Number(m[2]) * MICRO_PER_TOKEN + Number((m[3] ?? '').padEnd(6, '0'));
  // Beyond 10^9 TOKEN is a typo or an attack, and beyond 2^53 micro it would no longer be exact.
  if (micro > MAX_MICRO) throw new RangeError(`TOKEN amount above ${MAX_TOKEN}: ${String(amount)}`);
  return m[1] ? -micro : micro;
}

/**
 * micro-TOKEN -> TOKEN for JSON output: the double nearest the decimal amount, so it prints with at most 6 decimals.
 * For an integer amount both operands of the division are exact doubles and IEEE division rounds the true quotient
 * to the nearest double, which is the same double `Number(text)` gives for the decimal text of that quotient: no
 * round trip through toFixed is needed (it was a measurable cost of a cache hit). Only a fraction of a micro-TOKEN,
 * which money never is, goes through toFixed to be cut at 6 decimals.
 */
export function toToken(micro: number): number {
  return Number.isInteger(micro) ? micro / MICRO_PER_TOKEN : Number((micro / MICRO_PER_TOKEN).toFixed(6));
}

/** Database drivers return bigint columns as number (SQLite) or string (pg): normalise, refusing precision loss. */
export function asMicro(value: unknown): number {
  const n = typeof value === 'bigint' ? Number(value) : typeof value === 'string' ? Number(value) : (value as number);
  if (!Number.isSafeInteger(n)) throw new RangeError(`money value is not a safe integer: ${String(value)}`);
  return n;
}
