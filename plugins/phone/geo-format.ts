// Layout of plugins/phone/assets/generated/geo.bin, shared by the writer (core/build/phone-asset.ts) and
// the reader (geo-table.ts) so the two cannot drift. All integers little-endian.
//
//   0   'TGEO'                      magic
//   4   u32 format version          GEO_FORMAT_VERSION
//   8   u32 rangeCount
//   12  u32 placeCount
//   16  u32 placeBytes              length of the UTF-8 blob
//   20  u32 starts[rangeCount]      sorted 7-digit prefixes (1300000..1999999); range i covers
//                                   starts[i] .. starts[i+1]-1
//   ..  u16 places[rangeCount]      index into the place table, NO_PLACE when the range has no location
//   ..  pad to a multiple of 4
//   ..  u32 placeOffsets[placeCount+1]   into the blob
//   ..  u8  blob                    "province|city" UTF-8 strings, back to back; "province|" (empty
//                                   city) is a place known only to the province (precision province)
//
// Ranges rather than one row per 7-digit prefix: consecutive prefixes mostly share a city, so this is a
// fraction of the size and still a plain binary search.

export const GEO_MAGIC = 0x4f454754; // 'TGEO' read as a little-endian u32
// 2: places may be province-only; prefixes without evidence for a place are NO_PLACE (phone-precision.ts).
export const GEO_FORMAT_VERSION = 2;
export const GEO_HEADER_BYTES = 20;
export const NO_PLACE = 0xffff;
/** First and last 7-digit prefix the table covers: second digit 3-9. */
export const GEO_FIRST_PREFIX = 1300000;
export const GEO_LAST_PREFIX = 1999999;

export function align4(n: number): number {
  return (n + 3) & ~3;
}
