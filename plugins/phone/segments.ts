// The segment table: which operator was allocated a number block and what kind of card it is.
// Data, one row per segment (3, 4 or 5 leading digits); the longest matching prefix wins, so '134' and
// '1349' can both be listed. Uncertain rows are marked and explained in README.md ("Segment table").
// Carrier facts from MIIT allocations as collected in public references (zh.wikipedia 中国内地移动终端通讯号码,
// VincentSit/ChinaMobilePhoneNumberRegex); cross-checked against libphonenumber's carrier data by a test.

export type Carrier = '中国移动' | '中国联通' | '中国电信' | '中国广电';

/**
 * basic: voice/SMS/data card of a network operator; virtual: resold by an MVNO (转售);
 * data: 上网卡 (data-first, SMS, voice optional); iot: 13-digit IoT numbers (物联网卡);
 * satellite: satellite phone; emergency: MIIT emergency communications (应急通信).
 */
export type SegmentKind = 'basic' | 'virtual' | 'data' | 'iot' | 'satellite' | 'emergency';

export interface SegmentRow {
  prefix: string;
  /** null: the block is held by an organisation that is not one of the four operators. */
  carrier: Carrier | null;
  kind: SegmentKind;
  /** Length of numbers in this block: 11, or 13 for IoT blocks. */
  digits: 11 | 13;
  /** Who holds it when not one of the four operators, or why the row is uncertain. */
  note?: string;
}

const M = '中国移动';
const U = '中国联通';
const T = '中国电信';
const B = '中国广电';

type Raw = readonly [prefix: string, carrier: Carrier | null, kind: SegmentKind, note?: string];

const RAW: readonly Raw[] = [
  // 13x
  ['130', U, 'basic'],
  ['131', U, 'basic'],
  ['132', U, 'basic'],
  ['133', T, 'basic'],
  ['134', M, 'basic'], // 1340-1348; 1349 below
  ['1349', T, 'satellite', 'formerly China Mobile/中国交通通信信息中心 satellite block, now China Telecom 天通'],
  ['135', M, 'basic'],
  ['136', M, 'basic'],
  ['137', M, 'basic'],
  ['138', M, 'basic'],
  ['139', M, 'basic'],
  // 14x: 11-digit data cards and 13-digit IoT blocks; 140, 142, 143, 1411-1419, 1442-1449 are reserved
  ['1410', T, 'iot'],
  ['1440', M, 'iot'],
  ['1441', M, 'iot', 'uncertain: reported as China Mobile IoT since 2020'],
  ['145', U, 'data'],
  ['146', U, 'iot'],
  ['147', M, 'data', 'some 147 numbers are issued with voice'],
  ['148', M, 'iot'],
  ['149', T, 'data', 'some 149 numbers are issued with voice'],
  // 15x (154 unallocated)
  ['150', M, 'basic'],
  ['151', M, 'basic'],
  ['152', M, 'basic'],
  ['153', T, 'basic'],
  ['155', U, 'basic'],
  ['156', U, 'basic'],
  ['157', M, 'basic'],
  ['158', M, 'basic'],
  ['159', M, 'basic'],
  // 16x
  ['162', T, 'virtual'],
  ['165', M, 'virtual'],
  ['166', U, 'basic'],
  ['167', U, 'virtual'],
  // 17x: 170 is split by its 4th digit between the operators whose networks the MVNO resells
  ['1700', T, 'virtual'],
  ['1701', T, 'virtual'],
  ['1702', T, 'virtual'],
  ['1703', M, 'virtual'],
  ['1704', U, 'virtual'],
  ['1705', M, 'virtual'],
  ['1706', M, 'virtual'],
  ['1707', U, 'virtual'],
  ['1708', U, 'virtual'],
  ['1709', U, 'virtual'],
  ['171', U, 'virtual'],
  ['172', M, 'basic'],
  ['173', T, 'basic'],
  // 174: only these sub-blocks are allocated (17413-17489 reserved)
  ['17400', T, 'satellite'],
  ['17401', T, 'satellite'],
  ['17402', T, 'satellite'],
  ['17403', T, 'satellite'],
  ['17404', T, 'satellite'],
  ['17405', T, 'satellite'],
  ['17406', null, 'emergency', '工业和信息化部应急通信保障中心'],
  ['17407', null, 'emergency', '工业和信息化部应急通信保障中心'],
  ['17408', null, 'emergency', '工业和信息化部应急通信保障中心'],
  ['17409', null, 'emergency', '工业和信息化部应急通信保障中心'],
  ['17410', null, 'emergency', '工业和信息化部应急通信保障中心'],
  ['17411', null, 'emergency', '工业和信息化部应急通信保障中心'],
  ['17412', null, 'emergency', '工业和信息化部应急通信保障中心'],
  ['1749', null, 'satellite', '北京船舶通信导航有限公司 (Inmarsat maritime satellite)'],
  ['175', U, 'basic'],
  ['176', U, 'basic'],
  ['177', T, 'basic'],
  ['178', M, 'basic'],
  // 18x
  ['180', T, 'basic'],
  ['181', T, 'basic'],
  ['182', M, 'basic'],
  ['183', M, 'basic'],
  ['184', M, 'basic'],
  ['185', U, 'basic'],
  ['186', U, 'basic'],
  ['187', M, 'basic'],
  ['188', M, 'basic'],
  ['189', T, 'basic'],
  // 19x (194 unallocated)
  ['190', T, 'basic'],
  ['191', T, 'basic'],
  ['192', B, 'basic'],
  ['193', T, 'basic'],
  ['195', M, 'basic'],
  ['196', U, 'basic'],
  ['197', M, 'basic'],
  ['198', M, 'basic'],
  ['199', T, 'basic'],
];

export const SEGMENTS: readonly SegmentRow[] = RAW.map(([prefix, carrier, kind, note]) => ({
  prefix,
  carrier,
  kind,
  digits: kind === 'iot' ? 13 : 11,
  ...(note ? { note } : {}),
}));

/** The card type name for a segment row; README.md lists every value this can return. */
export function cardTypeOf(carrier: Carrier | null, kind: SegmentKind): string {
  if (kind === 'satellite') return '卫星电话';
  if (kind === 'emergency') return '应急通信';
  // Every other kind has a carrier in the table; the fallback only keeps the type total.
  const c = carrier ?? '未知运营商';
  if (kind === 'virtual') return `${c}虚拟运营商`; // phone.dat's own spelling
  if (kind === 'data') return `${c} 上网卡`;
  if (kind === 'iot') return `${c} 物联网卡`;
  return c;
}
