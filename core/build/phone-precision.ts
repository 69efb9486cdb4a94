// Decides, for every 7-digit mobile prefix, how much of libphonenumber's place we can stand behind.
//
// libphonenumber's Chinese data is a compressed table: its 7-digit keys are the evidence (one block of 10,000
// numbers, one place), and a shorter key is an aggregation that stands for every 7-digit prefix under it
// not listed separately. The data shows how it was compressed: a child never repeats its parent's place, a
// 6-digit key never has more than 4 exceptions, and a 6-digit group with gaps never gets a parent. But above
// 6 digits the aggregation also covers prefixes nobody knew: e.g. "1784 吉林省长春市" stands for 1,000 prefixes
// where older copies of the same source list only ten. A short key is therefore not evidence for a city, and
// only for a province when nothing under it contradicts it:
//   - 7-digit key                                   -> city
//   - shorter key, every more specific key under it in the same province (or none under a 6-digit key,
//     whose ten prefixes were all known alike)      -> province; for 北京/上海/天津/重庆 that is the city too
//   - shorter key with a more specific key in another province, or a 4/5-digit key with nothing under it
//     (a whole 100/1,000-block from a single claim: the shape of a default, not of evidence) -> no location
//   - a segment whose numbers carry no home location (MVNO, data, IoT, satellite, emergency)  -> no location
import { MUNICIPALITIES, splitPlace } from './phone-places.js';

export type Precision = 'city' | 'province' | 'none';

export interface ResolvedPlace {
  province: string;
  /** null at province precision. */
  city: string | null;
}

export interface PrecisionStats {
  city: number;
  province: number;
  none: number;
  /** none because the segment has no location data at all (non-basic kind, or no key in the data). */
  noneBySegment: number;
}

/** Mobile keys (1[3-9]..., 4 to 7 digits) sorted so every key's descendants follow it contiguously. */
function mobileKeys(geocodes: Record<string, string>): string[] {
  return Object.keys(geocodes)
    .filter((k) => /^1[3-9]\d{2,5}$/.test(k))
    .sort();
}

/**
 * For each key shorter than 7 digits: its province when the province can be kept for the prefixes it
 * decides, else null. Descendants of a key are the keys right after it in sorted order that start with it.
 */
export function agreedProvinces(geocodes: Record<string, string>): Map<string, string | null> {
  const keys = mobileKeys(geocodes);
  const out = new Map<string, string | null>();
  keys.forEach((key, i) => {
    if (key.length >= 7) return;
    const province = splitPlace(geocodes[key]!).province;
    let descendants = 0;
    let agree = true;
    for (let j = i + 1; j < keys.length && keys[j]!.startsWith(key); j++) {
      descendants++;
      if (splitPlace(geocodes[keys[j]!]!).province !== province) {
        agree = false;
        break;
      }
    }
    const kept = agree && (descendants > 0 || key.length === 6);
    out.set(key, kept ? province : null);
  });
  return out;
}

/**
 * Resolves one 7-digit prefix. `agreed` comes from agreedProvinces; `locatable` says whether the prefix's
 * segment carries home locations at all (basic voice segments do; MVNO, data, IoT, satellite do not).
 */
export function resolvePrefix(
  prefix: number,
  geocodes: Record<string, string>,
  agreed: ReadonlyMap<string, string | null>,
  locatable: (prefix7: string) => boolean,
): ResolvedPlace | null {
  const key = String(prefix);
  if (!locatable(key)) return null;
  const exact = geocodes[key];
  if (exact !== undefined) return splitPlace(exact);
  for (const length of [6, 5, 4]) {
    const short = key.slice(0, length);
    if (geocodes[short] === undefined) continue;
    const province = agreed.get(short) ?? null;
    if (province === null) return null;
    // A municipality is a province-level city: knowing the province is knowing the city.
    return { province, city: MUNICIPALITIES.includes(province) ? province : null };
  }
  return null;
}

export function precisionOf(place: ResolvedPlace | null): Precision {
  if (!place) return 'none';
  return place.city === null ? 'province' : 'city';
}
