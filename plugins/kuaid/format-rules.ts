// The number-format table detection ranks couriers with: data, not code. Each row says "a normalised number
// matching `pattern` belongs to `com` with this weight"; a courier scores its best matching row.
//
// Weights are relative evidence within one number shape (length + prefix), not probabilities:
// 100 = a letter prefix or format only that courier issues; 60-95 = the modern format of one network;
// 30-55 = a shape several networks share, ranked by which network the real numbers of that prefix belonged
// to; 5-25 = a network that is known to use the shape but was rarely or never seen with it.
// Confidence = weight / max(100, sum of the weights of every matching courier), so shared shapes come out
// below 1 and close rivals come out ambiguous (detect.ts).
//
// `basis` says where a row comes from: "format" = a published format fact (courier docs, Kuaidi100's and
// Kdniao's code lists, SDK test cases); "sample" = the prefix split seen in the real numbers of
// test/plugins/kuaid/fixtures/real-numbers.json (each carries its public source). The accuracy test runs
// the whole sample through these rows: change a weight, re-run it.

export interface FormatRule {
  com: string;
  pattern: string;
  weight: number;
  basis: 'format' | 'sample' | 'format+sample';
  note?: string;
}

export const FORMAT_RULES: readonly FormatRule[] = [
  // Letter prefixes: the courier prints its own initials.
  { com: 'shunfeng', pattern: '^SF\\d{13}$', weight: 100, basis: 'format+sample' },
  { com: 'yuantong', pattern: '^YT\\d{13}$', weight: 100, basis: 'format+sample' },
  { com: 'jtexpress', pattern: '^JT\\d{13}$', weight: 100, basis: 'format+sample' },
  { com: 'tiantian', pattern: '^TT\\d{13}$', weight: 100, basis: 'format+sample' },
  {
    com: 'jd',
    pattern: '^JD[0-9A-Z]{0,2}\\d{10,14}$',
    weight: 100,
    basis: 'format+sample',
    note: 'JD+13, JDX/JDV?+12..14',
  },
  { com: 'jd', pattern: '^V[A-C]\\d{11}$', weight: 95, basis: 'format+sample', note: 'JD VA/VB/VC waybills' },
  { com: 'suning', pattern: '^SN\\d{16}$', weight: 100, basis: 'format' },
  {
    com: 'debangkuaidi',
    pattern: '^DPK\\d{12}(-\\d{1,3})?$',
    weight: 100,
    basis: 'format+sample',
    note: '-NNN piece suffix',
  },
  { com: 'zhaijisong', pattern: '^ZJS\\d{12}$', weight: 100, basis: 'format' },
  { com: 'zhaijisong', pattern: '^A\\d{12}$', weight: 60, basis: 'format' },
  { com: 'youshuwuliu', pattern: '^VIP\\d{9,14}$', weight: 60, basis: 'format' },
  { com: 'kuayue', pattern: '^KY[0-9A-Z]{8,16}$', weight: 50, basis: 'format' },
  { com: 'ups', pattern: '^1Z[0-9A-Z]{16}$', weight: 100, basis: 'format', note: 'UPS 1Z + 16' },
  { com: 'dhl', pattern: '^JJD\\d{18,20}$', weight: 90, basis: 'format', note: 'DHL JJD piece numbers' },
  // UPU S10 items: EMS inside China; other countries' posts hand over to EMS too.
  { com: 'ems', pattern: '^[A-Z]{2}\\d{9}CN$', weight: 95, basis: 'format' },
  { com: 'ems', pattern: '^[A-Z]{2}\\d{9}[A-Z]{2}$', weight: 60, basis: 'format' },

  // 18 digits: YTO's 80/88 series.
  { com: 'yuantong', pattern: '^8[08]\\d{16}$', weight: 95, basis: 'format+sample' },
  { com: 'yuantong', pattern: '^\\d{18}$', weight: 20, basis: 'format' },

  // 15 digits: STO 77 (773...), Yunda 3/4 (43/46...), Best 55, Cainiao 6.
  { com: 'shentong', pattern: '^77\\d{13}$', weight: 90, basis: 'format+sample' },
  { com: 'yunda', pattern: '^4[0-9]\\d{13}$', weight: 85, basis: 'format+sample' },
  { com: 'yunda', pattern: '^3\\d{14}$', weight: 60, basis: 'format' },
  { com: 'shentong', pattern: '^43\\d{13}$', weight: 20, basis: 'format', note: 'one ruleset files 43... under STO' },
  { com: 'huitongkuaidi', pattern: '^5[05]\\d{13}$', weight: 60, basis: 'format+sample' },
  { com: 'danniao', pattern: '^621\\d{12}$', weight: 70, basis: 'format' },
  { com: 'danniao', pattern: '^6\\d{14}$', weight: 60, basis: 'format' },

  // 14 digits: ZTO 73-78, Best 70/71 and 50/51/55-57.
  { com: 'zhongtong', pattern: '^7[3-8]\\d{12}$', weight: 90, basis: 'format+sample' },
  { com: 'huitongkuaidi', pattern: '^7[01]\\d{12}$', weight: 80, basis: 'format+sample' },
  { com: 'huitongkuaidi', pattern: '^5[015-7]\\d{12}$', weight: 70, basis: 'format+sample' },
  { com: 'zhongtong', pattern: '^\\d{14}$', weight: 20, basis: 'format' },
  { com: 'huitongkuaidi', pattern: '^\\d{14}$', weight: 15, basis: 'format' },

  // 13 digits: EMS 1 and 5 (50/51 economy), China Post 9, Yunda 3/4 (and legacy 10/12/15/19), STO 33/77/87.
  { com: 'ems', pattern: '^11\\d{11}$', weight: 70, basis: 'format+sample' },
  { com: 'ems', pattern: '^1[0346-8]\\d{11}$', weight: 55, basis: 'format+sample' },
  { com: 'ems', pattern: '^1[259]\\d{11}$', weight: 45, basis: 'format+sample' },
  {
    com: 'yunda',
    pattern: '^1[0259]\\d{11}$',
    weight: 45,
    basis: 'sample',
    note: 'legacy Yunda 10/12/15/19..., shared with EMS',
  },
  { com: 'yunda', pattern: '^1[259]\\d{11}$', weight: 50, basis: 'sample' },
  { com: 'youzhengguonei', pattern: '^9[89]\\d{11}$', weight: 80, basis: 'format+sample' },
  { com: 'ems', pattern: '^9[89]\\d{11}$', weight: 25, basis: 'format' },
  {
    com: 'ems',
    pattern: '^9[0-7]\\d{11}$',
    weight: 50,
    basis: 'sample',
    note: 'China Post 96/97 numbers quoted as EMS',
  },
  { com: 'youzhengguonei', pattern: '^9[0-7]\\d{11}$', weight: 48, basis: 'format' },
  { com: 'shentong', pattern: '^33\\d{11}$', weight: 70, basis: 'format+sample', note: 'older STO 33...' },
  { com: 'yunda', pattern: '^33\\d{11}$', weight: 30, basis: 'sample' },
  { com: 'yunda', pattern: '^3[0-24-9]\\d{11}$', weight: 70, basis: 'format+sample', note: 'Yunda 31/38/39...' },
  { com: 'shentong', pattern: '^3[0-24-9]\\d{11}$', weight: 20, basis: 'format' },
  { com: 'yunda', pattern: '^4\\d{12}$', weight: 70, basis: 'format+sample', note: 'Yunda 43/40...' },
  { com: 'shentong', pattern: '^4\\d{12}$', weight: 15, basis: 'format' },
  { com: 'ems', pattern: '^5[01]\\d{11}$', weight: 60, basis: 'format+sample', note: 'EMS economy 50/51' },
  { com: 'yunda', pattern: '^5\\d{12}$', weight: 35, basis: 'format' },
  { com: 'ems', pattern: '^5[2-9]\\d{11}$', weight: 40, basis: 'format' },
  { com: 'shentong', pattern: '^[78]7\\d{11}$', weight: 70, basis: 'format+sample', note: 'STO 77/87 13-digit' },
  { com: 'shentong', pattern: '^[2-9]68\\d{10}$', weight: 30, basis: 'format', note: 'legacy STO x68' },
  { com: 'shentong', pattern: '^[2678]\\d{12}$', weight: 20, basis: 'format' },
  { com: 'jd', pattern: '^00\\d{11}$', weight: 40, basis: 'sample' },

  // 12 digits: the legacy pool of SF, ZTO, STO, YTO, Best, TTK, Yunda, ANE, UC... ranked by first digits.
  { com: 'shunfeng', pattern: '^[1239]\\d{11}$', weight: 45, basis: 'format+sample', note: 'SF 1x/2x/3x/9x' },
  { com: 'shunfeng', pattern: '^[4-8]\\d{11}$', weight: 18, basis: 'sample' },
  { com: 'zhongtong', pattern: '^[4-7]\\d{11}$', weight: 55, basis: 'format+sample', note: 'ZTO 4x-7x' },
  { com: 'zhongtong', pattern: '^3\\d{11}$', weight: 30, basis: 'sample' },
  { com: 'tiantian', pattern: '^(55|56|66)\\d{10}$', weight: 65, basis: 'format+sample', note: 'TTK 55/56/66' },
  { com: 'tiantian', pattern: '^\\d{12}$', weight: 8, basis: 'format' },
  { com: 'shentong', pattern: '^(22|40|76|96)\\d{10}$', weight: 50, basis: 'sample' },
  { com: 'shentong', pattern: '^[2-9]68\\d{9}$', weight: 40, basis: 'format', note: 'legacy STO x68' },
  { com: 'shentong', pattern: '^\\d{12}$', weight: 10, basis: 'format' },
  { com: 'yuantong', pattern: '^(80|71|10)\\d{10}$', weight: 40, basis: 'sample' },
  { com: 'yuantong', pattern: '^\\d{12}$', weight: 8, basis: 'format', note: 'legacy YTO 10-12 characters' },
  { com: 'huitongkuaidi', pattern: '^(21|28|35)\\d{10}$', weight: 40, basis: 'sample' },
  { com: 'yunda', pattern: '^38\\d{10}$', weight: 30, basis: 'sample' },
  { com: 'youshuwuliu', pattern: '^\\d{12}$', weight: 5, basis: 'format' },
  { com: 'zhongtongkuaiyun', pattern: '^\\d{12}$', weight: 5, basis: 'format' },
  { com: 'ane66', pattern: '^\\d{12}$', weight: 5, basis: 'format' },
  { com: 'yimidida', pattern: '^\\d{12}$', weight: 4, basis: 'format' },

  // 11 digits: JD's legacy order-number waybills.
  { com: 'jd', pattern: '^\\d{11}$', weight: 70, basis: 'format+sample' },
  // 8-10 digits: Deppon legacy; JD and YTO used 10 digits too; ZJS 10 characters.
  { com: 'debangwuliu', pattern: '^\\d{8,10}(-\\d{1,3})?$', weight: 50, basis: 'format+sample' },
  { com: 'jd', pattern: '^\\d{10}$', weight: 30, basis: 'sample' },
  { com: 'yuantong', pattern: '^\\d{10}$', weight: 22, basis: 'sample' },
  { com: 'zhaijisong', pattern: '^[0-9A-Z]{10}$', weight: 20, basis: 'format' },
];
