// Numbers, money and dates in the current language. Money arrives from the API as TOKEN numbers with at most
// six decimals; it is shown with as many decimals as it has (0.005 stays 0.005), at least two.
import { getLang } from './i18n/index.js';

const locale = (): string => (getLang() === 'zh' ? 'zh-CN' : 'en-US');

export function tokens(n: number | null | undefined): string {
  if (n === null || n === undefined || Number.isNaN(n)) return '—';
  return n.toLocaleString(locale(), { minimumFractionDigits: 2, maximumFractionDigits: 6 });
}

export function int(n: number | null | undefined): string {
  return n === null || n === undefined ? '—' : n.toLocaleString(locale());
}

export function dateTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime())
    ? iso
    : d.toLocaleString(locale(), {
        hour12: false,
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
      });
}

export function date(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime())
    ? iso
    : d.toLocaleDateString(locale(), { year: 'numeric', month: '2-digit', day: '2-digit' });
}

export function ms(n: number | null | undefined): string {
  if (n === null || n === undefined) return '—';
  return `${n < 10 ? n.toFixed(1) : Math.round(n).toLocaleString(locale())} ms`;
}

export function prettyJson(v: unknown): string {
  return JSON.stringify(v, null, 2);
}

/** "2024-05-01" days from today back, oldest first, in China time (the server buckets usage by China day). */
export function lastDays(n: number, now = Date.now()): string[] {
  const out: string[] = [];
  for (let i = n - 1; i >= 0; i--) out.push(new Date(now + 8 * 3600_000 - i * 86_400_000).toISOString().slice(0, 10));
  return out;
}
