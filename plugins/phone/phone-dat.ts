// Reader for the open phone.dat format (xluohome/phonedata and its forks, e.g. ls0f/phone):
//   header   u32 LE version (four ASCII digits "YYMM" in the published files), u32 LE offset of the index
//   records  "province|city|zip|area_code\0" back to back, starting at byte 8
//   index    9-byte entries to the end of the file: u32 LE 7-digit prefix, u32 LE record offset, u8 card type
// The index is sorted by prefix, so a lookup is a binary search; records are decoded on first use and cached.
import type { Carrier } from './segments.js';
import { decodeUtf8 } from './utf8.js';

/** Bytes per index entry: u32 prefix, u32 record offset, u8 card type. */
export const PHONE_DAT_ENTRY_BYTES = 9;
const ENTRY = PHONE_DAT_ENTRY_BYTES;

export interface DatRecord {
  province: string;
  city: string;
  zip: string | null;
  area_code: string | null;
}

export interface DatHit extends DatRecord {
  carrier: Carrier | null;
  card_type: string;
  is_virtual: boolean;
}

export interface PhoneDat {
  bytes: Uint8Array;
  view: DataView;
  indexAt: number;
  count: number;
  version: string;
  records: Map<number, DatRecord>;
}

/** Card type byte -> [carrier, card type name]. 7 and 8 are the later forks' additions for China Broadnet. */
const CARD_TYPES: ReadonlyMap<number, readonly [Carrier, string, boolean]> = new Map([
  [1, ['中国移动', '中国移动', false]],
  [2, ['中国联通', '中国联通', false]],
  [3, ['中国电信', '中国电信', false]],
  [4, ['中国电信', '中国电信虚拟运营商', true]],
  [5, ['中国联通', '中国联通虚拟运营商', true]],
  [6, ['中国移动', '中国移动虚拟运营商', true]],
  [7, ['中国广电', '中国广电', false]],
  [8, ['中国广电', '中国广电虚拟运营商', true]],
]);

export function parsePhoneDat(buffer: ArrayBuffer): PhoneDat {
  const bytes = new Uint8Array(buffer);
  const view = new DataView(buffer);
  if (bytes.length < 8) throw new Error(`phone.dat is ${bytes.length} bytes, shorter than its 8-byte header`);
  const indexAt = view.getUint32(4, true);
  if (indexAt < 8 || indexAt > bytes.length) throw new Error(`phone.dat index offset ${indexAt} is outside the file`);
  if ((bytes.length - indexAt) % ENTRY !== 0)
    throw new Error('phone.dat index is not a whole number of 9-byte entries');
  const raw = bytes.subarray(0, 4);
  const version = raw.every((b) => b >= 0x20 && b < 0x7f) ? decodeUtf8(raw) : String(view.getUint32(0, true));
  return { bytes, view, indexAt, count: (bytes.length - indexAt) / ENTRY, version, records: new Map() };
}

/** Card type bytes the reader knows (1-8); anything else answers with the segment table's carrier. */
export function isKnownCardType(type: number): boolean {
  return CARD_TYPES.has(type);
}

/** Index entry i as stored, for tools that walk the whole file (the CLI's `phone-data check`). */
export function datEntryAt(dat: PhoneDat, i: number): { prefix: number; offset: number; type: number } {
  const at = dat.indexAt + i * ENTRY;
  return { prefix: dat.view.getUint32(at, true), offset: dat.view.getUint32(at + 4, true), type: dat.bytes[at + 8]! };
}

/** The record at a byte offset, or null when the offset is outside the record area. */
export function datRecordAt(dat: PhoneDat, offset: number): DatRecord | null {
  return readRecord(dat, offset);
}

export function findInPhoneDat(dat: PhoneDat, prefix7: number): DatHit | null {
  let lo = 0;
  let hi = dat.count - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const at = dat.indexAt + mid * ENTRY;
    const key = dat.view.getUint32(at, true);
    if (key < prefix7) lo = mid + 1;
    else if (key > prefix7) hi = mid - 1;
    else return hit(dat, dat.view.getUint32(at + 4, true), dat.bytes[at + 8]!);
  }
  return null;
}

function hit(dat: PhoneDat, offset: number, type: number): DatHit | null {
  const record = readRecord(dat, offset);
  if (!record) return null;
  const [carrier, cardType, isVirtual] = CARD_TYPES.get(type) ?? [null, '未知运营商', false];
  return { ...record, carrier, card_type: cardType, is_virtual: isVirtual };
}

function readRecord(dat: PhoneDat, offset: number): DatRecord | null {
  const cached = dat.records.get(offset);
  if (cached) return cached;
  if (offset < 8 || offset >= dat.indexAt) return null;
  let end = offset;
  while (end < dat.indexAt && dat.bytes[end] !== 0) end++;
  const [province = '', city = '', zip = '', area = ''] = decodeUtf8(dat.bytes, offset, end).split('|');
  const record: DatRecord = { province, city, zip: zip || null, area_code: area || null };
  dat.records.set(offset, record);
  return record;
}
