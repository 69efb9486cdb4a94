// What makes a console CSV export readable where it is opened: a UTF-8 byte-order mark (without
// it Excel reads UTF-8 as the local code page and Chinese turns into mojibake), times in the reader's time zone
// as "YYYY-MM-DD HH:mm:ss" (a form spreadsheets parse as a date; the zone is named in the column header), and
// header labels in the UI language. The browser sends its IANA zone (?tz=Asia/Shanghai) and language (?lang=).
import type { Context } from 'koa';
import { type Locale, localeFromAcceptLanguage } from '../../accounts/locale.js';
import { invalid, queryOf } from './input.js';

export const UTF8_BOM = '\uFEFF';
export const DEFAULT_TZ = 'Asia/Shanghai';

export interface CsvLocale {
  lang: Locale;
  tz: string;
}

/** Column labels by column id; a time column's label is followed by its zone. */
const LABELS: Record<string, { zh: string; en: string; time?: true }> = {
  id: { zh: '编号', en: 'ID' },
  request_id: { zh: '请求 ID', en: 'Request ID' },
  created_at: { zh: '时间', en: 'Time', time: true },
  paid_at: { zh: '支付时间', en: 'Paid at', time: true },
  expires_at: { zh: '过期时间', en: 'Expires at', time: true },
  redeemed_at: { zh: '兑换时间', en: 'Redeemed at', time: true },
  operation: { zh: '接口', en: 'Operation' },
  key_id: { zh: '密钥编号', en: 'Key ID' },
  key: { zh: '密钥', en: 'Key' },
  status: { zh: '状态', en: 'Status' },
  error_code: { zh: '错误码', en: 'Error code' },
  charged: { zh: '扣费（TOKEN）', en: 'Charged (TOKEN)' },
  cached: { zh: '缓存命中', en: 'Cached' },
  free_reason: { zh: '免费原因', en: 'Free because' },
  duration_ms: { zh: '耗时（毫秒）', en: 'Duration (ms)' },
  ip: { zh: 'IP', en: 'IP' },
  email: { zh: '邮箱', en: 'Email' },
  role: { zh: '角色', en: 'Role' },
  balance: { zh: '余额（TOKEN）', en: 'Balance (TOKEN)' },
  held: { zh: '冻结（TOKEN）', en: 'Held (TOKEN)' },
  user_id: { zh: '用户编号', en: 'User ID' },
  user_email: { zh: '用户邮箱', en: 'User email' },
  kind: { zh: '类型', en: 'Kind' },
  item_id: { zh: '商品编号', en: 'Item ID' },
  item_name: { zh: '商品名称', en: 'Item' },
  amount: { zh: '金额（TOKEN）', en: 'Amount (TOKEN)' },
  provider: { zh: '支付方式', en: 'Payment method' },
  balance_after: { zh: '变动后余额（TOKEN）', en: 'Balance after (TOKEN)' },
  ref: { zh: '关联', en: 'Reference' },
  note: { zh: '备注', en: 'Note' },
  code: { zh: '兑换码', en: 'Code' },
  redeemed_by: { zh: '兑换用户', en: 'Redeemed by' },
};

/** A zone name Intl knows (IANA, e.g. Asia/Shanghai, Europe/Berlin, UTC); anything else is refused. */
function validZone(tz: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(tz)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** ?tz= (default Asia/Shanghai) and ?lang= (else Accept-Language, else Chinese, the console's default). */
export function csvLocaleOf(ctx: Context): CsvLocale {
  const tz = queryOf(ctx, 'tz');
  // Worded like the console's request check (core/console/routes/input-checks.ts), which may answer first.
  if (tz !== undefined && tz.length > 64) throw invalid("'tz' must be at most 64 characters.");
  const lang = queryOf(ctx, 'lang');
  if (lang !== undefined && lang !== 'zh' && lang !== 'en') throw invalid("'lang' must be one of zh, en.");
  return csvLocale({ tz, lang }, ctx.get('accept-language'));
}

/**
 * The same from a checked query (core/console/contract/csv.ts states the form of both): what is left to check is
 * that Intl knows the zone.
 */
export function csvLocale(q: { tz?: string; lang?: 'zh' | 'en' }, acceptLanguage: string): CsvLocale {
  const tz = q.tz ?? DEFAULT_TZ;
  if (!validZone(tz)) throw invalid(`'tz' must be an IANA time zone such as Asia/Shanghai or Europe/London.`);
  return { lang: q.lang ?? localeFromAcceptLanguage(acceptLanguage) ?? 'zh', tz };
}

/** The header row: each column id as a label in the locale's language, time columns naming the zone. */
export function csvHeader(columns: readonly string[], loc: CsvLocale): string[] {
  return columns.map((c) => {
    const l = LABELS[c];
    if (!l) return c;
    const text = l[loc.lang];
    if (!l.time) return text;
    return loc.lang === 'zh' ? `${text}（${loc.tz}）` : `${text} (${loc.tz})`;
  });
}

const pad = (n: number): string => (n < 10 ? `0${n}` : String(n));

/** UTC offset (ms) of `fmt`'s zone at `ms`, a whole second. */
function offsetAt(fmt: Intl.DateTimeFormat, ms: number): number {
  const p: Record<string, number> = {};
  for (const part of fmt.formatToParts(new Date(ms))) if (part.type !== 'literal') p[part.type] = Number(part.value);
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - ms;
}

/**
 * A formatter of epoch milliseconds as local "YYYY-MM-DD HH:mm:ss". Intl is slow per call, so it only finds
 * the zone's offset, once per 15-minute stretch of UTC (every offset change in use today falls on such a
 * boundary: offsets and switch times are whole quarter hours); the text is then plain arithmetic.
 */
export function localClock(tz: string): (ms: number | string | bigint | null) => string | null {
  const fmt = new Intl.DateTimeFormat('en-US', {
    timeZone: tz,
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
    hourCycle: 'h23',
  });
  const QUARTER = 900_000;
  let bucket = Number.NaN;
  let offset = 0;
  return (value) => {
    if (value === null) return null;
    const ms = Number(value);
    const b = Math.floor(ms / QUARTER);
    if (b !== bucket) {
      offset = offsetAt(fmt, b * QUARTER);
      bucket = b;
    }
    const d = new Date(ms + offset);
    return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
  };
}
