// The courier table: data, not code. One row per courier; add a courier by adding a row (and its number
// formats to format-rules.ts). `code` is the Kuaidi100 `com` and our canonical code.
// Sources: Kuaidi100's and Kdniao's published company-code lists and the couriers' own customer-service numbers.

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
}

export const COURIERS: readonly Courier[] = [
  // Order matters only for ties between equal weights in format-rules.ts.
  { code: 'shunfeng', zh: '顺丰速运', en: 'SF Express', kdniao: 'SF', aliases: ['sf', 'sfexpress'], needs_phone: true },
  { code: 'zhongtong', zh: '中通快递', en: 'ZTO Express', kdniao: 'ZTO', aliases: ['zto'], needs_phone: true },
  { code: 'yuantong', zh: '圆通速递', en: 'YTO Express', kdniao: 'YTO', aliases: ['yto', 'yt'], needs_phone: false },
  { code: 'shentong', zh: '申通快递', en: 'STO Express', kdniao: 'STO', aliases: ['sto'], needs_phone: false },
  { code: 'yunda', zh: '韵达快递', en: 'Yunda Express', kdniao: 'YD', aliases: ['yd'], needs_phone: false },
  {
    code: 'jtexpress',
    zh: '极兔速递',
    en: 'J&T Express',
    kdniao: 'JTSD',
    aliases: ['jt', 'jtsd', 'jitu'],
    needs_phone: false,
  },
  { code: 'jd', zh: '京东快递', en: 'JD Logistics', kdniao: 'JD', aliases: ['jingdong'], needs_phone: false },
  { code: 'ems', zh: 'EMS', en: 'EMS (China Post Express)', kdniao: 'EMS', aliases: [], needs_phone: false },
  {
    code: 'youzhengguonei',
    zh: '邮政快递包裹',
    en: 'China Post Parcel',
    kdniao: 'YZPY',
    aliases: ['youzheng', 'chinapost', 'yzpy'],
    needs_phone: false,
  },
  {
    code: 'debangkuaidi',
    zh: '德邦快递',
    en: 'Deppon Express',
    kdniao: 'DBL',
    aliases: ['deppon', 'db', 'dbl'],
    needs_phone: false,
  },
  { code: 'debangwuliu', zh: '德邦物流', en: 'Deppon Logistics', kdniao: 'DBL', aliases: [], needs_phone: false },
  {
    code: 'huitongkuaidi',
    zh: '百世快递',
    en: 'Best Express',
    kdniao: 'HTKY',
    aliases: ['best', 'htky', 'bsky', 'ht'],
    needs_phone: false,
  },
  { code: 'zhaijisong', zh: '宅急送', en: 'ZJS Express', kdniao: 'ZJS', aliases: ['zjs'], needs_phone: false },
  {
    code: 'danniao',
    zh: '菜鸟速递(丹鸟)',
    en: 'Cainiao Express (Danniao)',
    kdniao: 'DNWL',
    aliases: ['cainiao', 'dnwl'],
    needs_phone: false,
  },
  {
    code: 'tiantian',
    zh: '天天快递',
    en: 'TTK Express',
    kdniao: 'HHTT',
    aliases: ['ttk', 'tt', 'hhtt'],
    needs_phone: false,
  },
  { code: 'youshuwuliu', zh: '优速快递', en: 'UC Express', kdniao: 'UC', aliases: ['uc', 'yousu'], needs_phone: false },
  { code: 'zhongtongkuaiyun', zh: '中通快运', en: 'ZTO Freight', kdniao: null, aliases: [], needs_phone: false },
  { code: 'ane66', zh: '安能快递', en: 'ANE Express', kdniao: 'ANE', aliases: ['ane'], needs_phone: false },
  { code: 'yimidida', zh: '壹米滴答', en: 'Yimidida', kdniao: null, aliases: [], needs_phone: false },
  { code: 'kuayue', zh: '跨越速运', en: 'KYE Express', kdniao: 'KYSY', aliases: ['kye', 'kysy'], needs_phone: false },
  { code: 'suning', zh: '苏宁物流', en: 'Suning Logistics', kdniao: 'SNWL', aliases: ['snwl'], needs_phone: false },
  { code: 'ups', zh: 'UPS', en: 'UPS', kdniao: 'UPS', aliases: [], needs_phone: false },
  { code: 'dhl', zh: 'DHL', en: 'DHL', kdniao: 'DHL', aliases: [], needs_phone: false },
  // Reachable through `com` only: no number format of their own is known.
  { code: 'shunfengkuaiyun', zh: '顺丰快运', en: 'SF Freight', kdniao: null, aliases: [], needs_phone: true },
  { code: 'shunfenglengyun', zh: '顺丰冷运', en: 'SF Cold Chain', kdniao: null, aliases: [], needs_phone: true },
  { code: 'fengwang', zh: '丰网速运', en: 'Fengwang Express', kdniao: null, aliases: [], needs_phone: true },
  { code: 'annengwuliu', zh: '安能物流', en: 'ANE Logistics', kdniao: 'ANE', aliases: [], needs_phone: false },
  { code: 'jingdongkuaiyun', zh: '京东快运', en: 'JD Freight', kdniao: null, aliases: [], needs_phone: false },
  { code: 'yundakuaiyun', zh: '韵达快运', en: 'Yunda Freight', kdniao: null, aliases: [], needs_phone: false },
  { code: 'baishiwuliu', zh: '百世快运', en: 'Best Freight', kdniao: null, aliases: [], needs_phone: false },
  {
    code: 'youzhengbk',
    zh: '邮政标准快递',
    en: 'China Post Standard Express',
    kdniao: null,
    aliases: [],
    needs_phone: false,
  },
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
  return { code, zh: code, en: code, kdniao: null, aliases: [], needs_phone: false };
}
