// The courier table: data, not code. One row per courier; add a courier by adding a row.
// `code` is the Kuaidi100 `com` and our canonical code. Patterns run against the normalised number
// (trimmed, inner spaces removed, upper-cased). Weights rank couriers when several patterns match:
// 100 = a letter prefix that settles it, 60-90 = a modern all-digit format, 10-40 = legacy or shared
// number spaces. Sources and certainty: /work/shared/research/kuaid.md §1-§2 ([unsure] rows stay low).

export interface CourierRule {
  pattern: RegExp;
  weight: number;
}

export interface Courier {
  /** Kuaidi100 company code; the canonical `com` of this API. */
  code: string;
  zh: string;
  en: string;
  /** Kdniao ShipperCode, or null when Kdniao has no known code for it (that provider is then skipped). */
  kdniao: string | null;
  /** Other spellings a caller may pass as `com` (Kdniao/juhe codes, lower-case). */
  aliases: string[];
  /** The carrier checks a sender/receiver phone (Kuaidi100: SF, SF freight, ZTO, Fengwang). */
  needs_phone: boolean;
  rules: CourierRule[];
}

const r = (pattern: RegExp, weight: number): CourierRule => ({ pattern, weight });

// 12 all-digit characters fit half the legacy networks (kuaid.md §2): every one of them gets a low weight,
// so such a number always comes back ambiguous with several candidates.
const TWELVE = /^\d{12}$/;

export const COURIERS: readonly Courier[] = [
  {
    code: 'shunfeng', zh: '顺丰速运', en: 'SF Express', kdniao: 'SF', aliases: ['sf', 'sfexpress'], needs_phone: true,
    rules: [r(/^SF\d{13}$/, 100), r(TWELVE, 30)],
  },
  {
    code: 'zhongtong', zh: '中通快递', en: 'ZTO Express', kdniao: 'ZTO', aliases: ['zto'], needs_phone: true,
    rules: [r(/^(7[3-6]|78)\d{12}$/, 90), r(TWELVE, 28)],
  },
  {
    code: 'yuantong', zh: '圆通速递', en: 'YTO Express', kdniao: 'YTO', aliases: ['yto', 'yt'], needs_phone: false,
    rules: [r(/^YT\d{13}$/, 100), r(/^88\d{16}$/, 40)],
  },
  {
    code: 'shentong', zh: '申通快递', en: 'STO Express', kdniao: 'STO', aliases: ['sto'], needs_phone: false,
    // One ruleset files 43... 15-digit numbers under STO too; keep it as a weak second to Yunda.
    rules: [r(/^77\d{13}$/, 90), r(/^43\d{13}$/, 30), r(/^[2-9]68\d{9,10}$/, 15), r(/^3720\d{8,9}$/, 15)],
  },
  {
    code: 'yunda', zh: '韵达快递', en: 'Yunda Express', kdniao: 'YD', aliases: ['yd'], needs_phone: false,
    rules: [r(/^4[36]\d{13}$/, 85), r(/^[34]\d{14}$/, 60), r(/^[345]\d{12}$/, 40)],
  },
  {
    code: 'jtexpress', zh: '极兔速递', en: 'J&T Express', kdniao: 'JTSD', aliases: ['jt', 'jtsd', 'jitu'], needs_phone: false,
    rules: [r(/^JT\d{13}$/, 100)],
  },
  {
    code: 'jd', zh: '京东快递', en: 'JD Logistics', kdniao: 'JD', aliases: ['jingdong'], needs_phone: false,
    rules: [r(/^JD[0-9A-Z]{2}\d{11}$/, 100)],
  },
  {
    code: 'ems', zh: 'EMS', en: 'EMS (China Post Express)', kdniao: 'EMS', aliases: [], needs_phone: false,
    rules: [r(/^[A-Z]{2}\d{9}[A-Z]{2}$/, 90), r(/^1\d{12}$/, 80), r(/^5[01]\d{11}$/, 70), r(/^5\d{12}$/, 60)],
  },
  {
    code: 'youzhengguonei', zh: '邮政快递包裹', en: 'China Post Parcel', kdniao: 'YZPY',
    aliases: ['youzheng', 'chinapost', 'yzpy'], needs_phone: false,
    rules: [r(/^9\d{12}$/, 80)],
  },
  {
    code: 'debangkuaidi', zh: '德邦快递', en: 'Deppon Express', kdniao: 'DBL', aliases: ['deppon', 'db', 'dbl'], needs_phone: false,
    // Multi-piece shipments carry a -NNN piece suffix.
    rules: [r(/^DPK\d{12}(-\d{1,3})?$/, 100)],
  },
  {
    code: 'debangwuliu', zh: '德邦物流', en: 'Deppon Logistics', kdniao: 'DBL', aliases: [], needs_phone: false,
    // Legacy 8-10 digit numbers predate the DPK express brand and answer under the older freight code.
    rules: [r(/^\d{8,10}(-\d{1,3})?$/, 40)],
  },
  {
    code: 'huitongkuaidi', zh: '百世快递', en: 'Best Express', kdniao: 'HTKY', aliases: ['best', 'htky', 'bsky', 'ht'], needs_phone: false,
    rules: [r(/^(70|71|55|56|57)\d{12}$/, 40)],
  },
  {
    code: 'zhaijisong', zh: '宅急送', en: 'ZJS Express', kdniao: 'ZJS', aliases: ['zjs'], needs_phone: false,
    rules: [r(/^ZJS\d{12}$/, 100), r(/^A\d{12}$/, 60), r(/^[0-9A-Z]{10}$/, 30)],
  },
  {
    code: 'danniao', zh: '菜鸟速递(丹鸟)', en: 'Cainiao Express (Danniao)', kdniao: 'DNWL', aliases: ['cainiao', 'dnwl'], needs_phone: false,
    rules: [r(/^621\d{12}$/, 70), r(/^6\d{14}$/, 60)],
  },
  {
    code: 'tiantian', zh: '天天快递', en: 'TTK Express', kdniao: 'HHTT', aliases: ['ttk', 'tt', 'hhtt'], needs_phone: false,
    rules: [r(TWELVE, 20)],
  },
  {
    code: 'youshuwuliu', zh: '优速快递', en: 'UC Express', kdniao: 'UC', aliases: ['uc', 'yousu'], needs_phone: false,
    rules: [r(/^VIP\d{9,14}$/, 60), r(TWELVE, 15)],
  },
  {
    code: 'zhongtongkuaiyun', zh: '中通快运', en: 'ZTO Freight', kdniao: null, aliases: [], needs_phone: false,
    rules: [r(TWELVE, 15)],
  },
  {
    code: 'ane66', zh: '安能快递', en: 'ANE Express', kdniao: 'ANE', aliases: ['ane'], needs_phone: false,
    rules: [r(TWELVE, 15)],
  },
  {
    code: 'yimidida', zh: '壹米滴答', en: 'Yimidida', kdniao: null, aliases: [], needs_phone: false,
    rules: [r(TWELVE, 12)],
  },
  {
    code: 'kuayue', zh: '跨越速运', en: 'KYE Express', kdniao: 'KYSY', aliases: ['kye', 'kysy'], needs_phone: false,
    rules: [r(/^KY[0-9A-Z]{8,16}$/, 50)],
  },
  // Reachable through `com` only: no number format of their own is known.
  { code: 'shunfengkuaiyun', zh: '顺丰快运', en: 'SF Freight', kdniao: null, aliases: [], needs_phone: true, rules: [] },
  { code: 'shunfenglengyun', zh: '顺丰冷运', en: 'SF Cold Chain', kdniao: null, aliases: [], needs_phone: true, rules: [] },
  { code: 'fengwang', zh: '丰网速运', en: 'Fengwang Express', kdniao: null, aliases: [], needs_phone: true, rules: [] },
  { code: 'annengwuliu', zh: '安能物流', en: 'ANE Logistics', kdniao: 'ANE', aliases: [], needs_phone: false, rules: [] },
  { code: 'jingdongkuaiyun', zh: '京东快运', en: 'JD Freight', kdniao: null, aliases: [], needs_phone: false, rules: [] },
  { code: 'yundakuaiyun', zh: '韵达快运', en: 'Yunda Freight', kdniao: null, aliases: [], needs_phone: false, rules: [] },
  { code: 'baishiwuliu', zh: '百世快运', en: 'Best Freight', kdniao: null, aliases: [], needs_phone: false, rules: [] },
  { code: 'youzhengbk', zh: '邮政标准快递', en: 'China Post Standard Express', kdniao: null, aliases: [], needs_phone: false, rules: [] },
];

const byCode = new Map<string, Courier>();
for (const c of COURIERS) {
  byCode.set(c.code, c);
  for (const a of c.aliases) if (!byCode.has(a)) byCode.set(a, c);
}

/** A courier by its canonical code or one of its aliases (case-insensitive), or undefined. */
export function findCourier(code: string): Courier | undefined {
  return byCode.get(code.toLowerCase());
}

/**
 * A courier we have no row for (a caller-supplied `com` we do not know): Kuaidi100 accepts any of its
 * codes, so the query still goes out under the caller's code; providers needing a mapping skip it.
 */
export function unknownCourier(code: string): Courier {
  return { code, zh: code, en: code, kdniao: null, aliases: [], needs_phone: false, rules: [] };
}
