// Reads geo.bin (see geo-format.ts) once into typed arrays and decoded places; lookups are a binary search.
import { align4, GEO_FORMAT_VERSION, GEO_HEADER_BYTES, GEO_MAGIC, NO_PLACE } from './geo-format.js';
import { decodeUtf8 } from './utf8.js';

export interface Place {
  province: string;
  /** null when the data stands behind the province only. */
  city: string | null;
}

export interface GeoTable {
  starts: Uint32Array;
  places: Uint16Array;
  names: readonly Place[];
}

export function parseGeoTable(buffer: ArrayBuffer): GeoTable {
  const view = new DataView(buffer);
  if (buffer.byteLength < GEO_HEADER_BYTES || view.getUint32(0, true) !== GEO_MAGIC) {
    throw new Error('geo asset is not a TGEO file');
  }
  const version = view.getUint32(4, true);
  if (version !== GEO_FORMAT_VERSION)
    throw new Error(`geo asset has format ${version}, expected ${GEO_FORMAT_VERSION}`);
  const rangeCount = view.getUint32(8, true);
  const placeCount = view.getUint32(12, true);
  const blobBytes = view.getUint32(16, true);
  const startsAt = GEO_HEADER_BYTES;
  const placesAt = startsAt + rangeCount * 4;
  const offsetsAt = align4(placesAt + rangeCount * 2);
  const blobAt = offsetsAt + (placeCount + 1) * 4;
  if (blobAt + blobBytes !== buffer.byteLength) throw new Error('geo asset is truncated or has trailing bytes');

  // Copied through DataView so the result does not depend on the host's byte order.
  const starts = new Uint32Array(rangeCount);
  const places = new Uint16Array(rangeCount);
  for (let i = 0; i < rangeCount; i++) {
    starts[i] = view.getUint32(startsAt + i * 4, true);
    places[i] = view.getUint16(placesAt + i * 2, true);
  }
  const bytes = new Uint8Array(buffer, blobAt, blobBytes);
  const names: Place[] = [];
  for (let i = 0; i < placeCount; i++) {
    const from = view.getUint32(offsetsAt + i * 4, true);
    const to = view.getUint32(offsetsAt + (i + 1) * 4, true);
    const [province = '', city = ''] = decodeUtf8(bytes, from, to).split('|');
    names.push({ province, city: city === '' ? null : city });
  }
  return { starts, places, names };
}

/** The place of a 7-digit prefix, or null when the data has none. */
export function findPlace(table: GeoTable, prefix7: number): Place | null {
  const i = rangeIndex(table.starts, prefix7);
  if (i < 0) return null;
  const p = table.places[i]!;
  return p === NO_PLACE ? null : (table.names[p] ?? null);
}

/** Index of the last range starting at or before `prefix`, -1 when none does. */
function rangeIndex(starts: Uint32Array, prefix: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (starts[mid]! <= prefix) {
      found = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return found;
}
