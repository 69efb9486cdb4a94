// The whole lookup as a pure function of the input and the loaded tables: no host, no I/O. The handler
// and the benchmark (bench/phone-lookup.ts, which bundles this module into an isolate) both call it.
import type { PluginOutcome } from '../../core/sandbox/contract.js';
import { areaCodeOf } from './area-codes.js';
import { findPlace, type GeoTable, type Place } from './geo-table.js';
import { normalisePhone, type Said, tooLong } from './normalise.js';
import { type DatHit, findInPhoneDat, type PhoneDat } from './phone-dat.js';
import { findSegment, unknownSegmentMessage } from './segment-index.js';
import { type Carrier, cardTypeOf, type SegmentRow } from './segments.js';

export interface PhoneData {
  phone: string;
  province: string | null;
  city: string | null;
  carrier: Carrier | null;
  card_type: string;
  is_virtual: boolean;
  segment: string;
  area_code: string | null;
  zip: string | null;
  /** How far the location can be trusted: city, province only, or no location at all. */
  precision: Precision;
  /** Which data answered: the operator's phone.dat, or the built-in libphonenumber data and segment table. */
  source: Source;
}

export type Precision = 'city' | 'province' | 'none';
export type Source = 'libphonenumber' | 'phone.dat';

export interface PhoneTables {
  geo: GeoTable;
  /** The operator's phone.dat, when the `phone_dat` option names one. */
  dat: PhoneDat | null;
}

export function lookupPhone(raw: unknown, tables: PhoneTables): PluginOutcome<PhoneData> {
  const norm = normalisePhone(raw);
  if (!norm.ok) return invalid(norm.message);
  const digits = norm.digits;
  const row = findSegment(digits);

  if (digits.length === 13) {
    // Only IoT blocks have 13-digit numbers, and no location data covers them.
    if (row?.digits !== 13) return invalid(tooLong(13));
    return { ok: true, data: fromSegment(digits, row, null) };
  }

  const prefix7 = Number(digits.slice(0, 7));
  const hit = tables.dat ? findInPhoneDat(tables.dat, prefix7) : null;
  if (hit) return { ok: true, data: fromPhoneDat(digits, row, hit) };

  if (!row) return invalid(unknownSegmentMessage(digits));
  if (row.digits === 13) {
    const type = cardTypeOf(row.carrier, row.kind);
    return invalid({
      en: `segment ${row.prefix} holds 13-digit IoT numbers (${type}): got 11 digits`,
      zh: `号段 ${row.prefix} 是 13 位物联网号码（${type}）：收到的是 11 位`,
    });
  }
  // The asset holds only places we stand behind (core/build/phone-precision.ts): a missing one is "none".
  return { ok: true, data: fromSegment(digits, row, findPlace(tables.geo, prefix7)) };
}

function fromSegment(digits: string, row: SegmentRow, place: Place | null): PhoneData {
  const codes = place?.city ? areaCodeOf(place.province, place.city) : { area_code: null, zip: null };
  return {
    phone: digits,
    province: place?.province ?? null,
    city: place?.city ?? null,
    carrier: row.carrier,
    card_type: cardTypeOf(row.carrier, row.kind),
    is_virtual: row.kind === 'virtual',
    segment: row.prefix,
    area_code: codes.area_code,
    zip: codes.zip,
    precision: place ? (place.city ? 'city' : 'province') : 'none',
    source: 'libphonenumber',
  };
}

/**
 * phone.dat knows location, carrier and MVNO status per 7-digit prefix, but its eight card types cannot say
 * 上网卡 or 卫星电话: when the segment table agrees on the carrier, its more specific kind names the card.
 */
function fromPhoneDat(digits: string, row: SegmentRow | undefined, hit: DatHit): PhoneData {
  // A card type byte this reader does not know (hit.carrier null) defers to the segment table entirely.
  const fromRow =
    row && (hit.carrier === null || (row.carrier === hit.carrier && (row.kind === 'data' || row.kind === 'satellite')));
  const province = hit.province || null;
  const city = province ? hit.city || null : null;
  return {
    phone: digits,
    province,
    city,
    carrier: hit.carrier ?? row?.carrier ?? null,
    card_type: fromRow ? cardTypeOf(row.carrier, row.kind) : hit.card_type,
    is_virtual: fromRow && hit.carrier === null ? row.kind === 'virtual' : hit.is_virtual,
    segment: row?.prefix ?? digits.slice(0, 3),
    area_code: hit.area_code,
    zip: hit.zip,
    precision: city ? 'city' : province ? 'province' : 'none',
    source: 'phone.dat',
  };
}

function invalid(message: Said): PluginOutcome<PhoneData> {
  return { ok: false, code: 'INVALID_INPUT', message: message.en, message_zh: message.zh };
}
