// What `tollgate phone-data check` finds in a phone.dat: whether every index entry is usable, how many
// 7-digit prefixes each 3-digit segment has, and (when the built-in table is given) how often the built-in
// answer agrees with the file where both give one. Pure: the command does the I/O and the printing.
import { findPlace, type GeoTable } from '../../plugins/phone/geo-table.js';
import { datEntryAt, datRecordAt, isKnownCardType, type PhoneDat } from '../../plugins/phone/phone-dat.js';

/** Problems listed one by one before the rest are only counted. */
const PROBLEMS_SHOWN = 10;

export interface SegmentCoverage {
  segment: string;
  /** 7-digit prefixes the file has in this segment (of 10,000 possible). */
  prefixes: number;
}

export interface Agreement {
  /** Prefixes where both the file and the built-in data name a province. */
  provinceCompared: number;
  provinceSame: number;
  /** Prefixes where both name a city (the built-in data only at precision city). */
  cityCompared: number;
  citySame: number;
}

export interface PhoneDatReport {
  version: string;
  prefixes: number;
  /** Distinct place records the index points at. */
  records: number;
  /** Prefixes whose record names a province. */
  located: number;
  segments: SegmentCoverage[];
  problems: string[];
  problemCount: number;
  agreement: Agreement | null;
}

export function analysePhoneDat(dat: PhoneDat, geo: GeoTable | null): PhoneDatReport {
  const problems: string[] = [];
  let problemCount = 0;
  const problem = (text: string): void => {
    if (problemCount++ < PROBLEMS_SHOWN) problems.push(text);
  };
  const offsets = new Set<number>();
  const bySegment = new Map<string, number>();
  const agreement: Agreement = { provinceCompared: 0, provinceSame: 0, cityCompared: 0, citySame: 0 };
  let located = 0;
  let previous = -1;

  for (let i = 0; i < dat.count; i++) {
    const { prefix, offset, type } = datEntryAt(dat, i);
    if (prefix < 1_000_000 || prefix > 1_999_999)
      problem(`entry ${i}: prefix ${prefix} is not a 7-digit mobile prefix`);
    // The plugin binary-searches the index: an unsorted file would silently miss numbers.
    if (prefix <= previous) problem(`entry ${i}: prefix ${prefix} is not after ${previous}; the index must be sorted`);
    previous = prefix;
    if (!isKnownCardType(type)) problem(`entry ${i} (${prefix}): card type ${type} is not one of 1-8`);
    const record = datRecordAt(dat, offset);
    if (!record) {
      problem(`entry ${i} (${prefix}): record offset ${offset} is outside the record area`);
      continue;
    }
    offsets.add(offset);
    const segment = String(prefix).slice(0, 3);
    bySegment.set(segment, (bySegment.get(segment) ?? 0) + 1);
    if (!record.province) continue;
    located++;
    const ours = geo ? findPlace(geo, prefix) : null;
    if (!ours) continue;
    agreement.provinceCompared++;
    if (ours.province === record.province) agreement.provinceSame++;
    if (ours.city !== null && record.city) {
      agreement.cityCompared++;
      if (ours.province === record.province && sameCity(ours.city, record.city)) agreement.citySame++;
    }
  }

  return {
    version: dat.version,
    prefixes: dat.count,
    records: offsets.size,
    located,
    segments: [...bySegment]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([segment, prefixes]) => ({ segment, prefixes })),
    problems,
    problemCount,
    agreement: geo ? agreement : null,
  };
}

/**
 * Files write prefectures short ("黔南", "哈密") or in full ("黔南布依族苗族自治州", "哈密地区"): the same
 * place either way, so one name starting with the other counts as the same city.
 */
export function sameCity(a: string, b: string): boolean {
  return a === b || (a.length >= 2 && b.length >= 2 && (a.startsWith(b) || b.startsWith(a)));
}
