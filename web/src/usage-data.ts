// Turns /console/api/usage into a full run of days (days without calls are absent from the API answer).
import { get } from './api.js';
import { lastDays } from './format.js';
import type { Reply } from './types.js';

export interface DailySeries {
  usage: Reply<'usage'>;
  days: string[];
  calls: number[];
  spend: number[];
  totalCalls: number;
  totalSpend: number;
}

/** `keyId`: one API key's share only. */
export async function dailyUsage(days = 30, keyId?: string): Promise<DailySeries> {
  const usage = await get<Reply<'usage'>>(`usage?days=${days}${keyId ? `&key_id=${encodeURIComponent(keyId)}` : ''}`);
  const labels = lastDays(days);
  const byDay = new Map(usage.by_day.map((d) => [d.day, d]));
  const calls = labels.map((d) => byDay.get(d)?.calls ?? 0);
  // Sum in micro-TOKEN integers: adding 0.005 thirty times in floats would show 0.15000000000000002.
  const spendMicro = labels.map((d) => Math.round((byDay.get(d)?.charged ?? 0) * 1e6));
  return {
    usage,
    days: labels,
    calls,
    spend: spendMicro.map((m) => m / 1e6),
    totalCalls: calls.reduce((a, b) => a + b, 0),
    totalSpend: spendMicro.reduce((a, b) => a + b, 0) / 1e6,
  };
}
