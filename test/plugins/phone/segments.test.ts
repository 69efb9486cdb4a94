// The segment table is data: check its shape, that it agrees with libphonenumber's carrier data, that
// every card type it can produce is documented, and the isolate-safe UTF-8 decoder it relies on.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { readLibphonenumberChina } from '../../../core/build/phone-asset.js';
import { findSegment } from '../../../plugins/phone/segment-index.js';
import { cardTypeOf, SEGMENTS } from '../../../plugins/phone/segments.js';
import { decodeUtf8 } from '../../../plugins/phone/utf8.js';

t.test('rows are well formed and unique', async (t) => {
  const seen = new Set<string>();
  for (const row of SEGMENTS) {
    t.match(row.prefix, /^1[3-9]\d{1,3}$/, row.prefix);
    t.notOk(seen.has(row.prefix), `duplicate ${row.prefix}`);
    seen.add(row.prefix);
    if (row.carrier === null) t.ok(row.note, `${row.prefix} names its holder`);
    t.equal(row.digits, row.kind === 'iot' ? 13 : 11);
  }
});

t.test('longest prefix wins', async (t) => {
  t.equal(findSegment('13481234567')?.prefix, '134');
  t.equal(findSegment('13491234567')?.prefix, '1349');
  t.equal(findSegment('17051234567')?.prefix, '1705');
  t.equal(findSegment('17405123456')?.prefix, '17405');
  t.equal(findSegment('17413123456'), undefined);
  t.equal(findSegment('15412345678'), undefined);
});

t.test("agrees with libphonenumber's carrier data wherever both name a carrier", async (t) => {
  const { carriers } = readLibphonenumberChina();
  const theirs = (prefix: string): string | undefined =>
    carriers[prefix.slice(0, 4)] ?? carriers[prefix.slice(0, 3)] ?? carriers[prefix.slice(0, 2)];
  for (const row of SEGMENTS) {
    const other = theirs(row.prefix);
    // 1349 and the IoT/satellite blocks are absent there; 154 is unallocated and has no row.
    if (row.carrier && other) t.equal(row.carrier, other, row.prefix);
  }
  for (const prefix of Object.keys(carriers).filter((k) => k.length >= 3)) {
    const covered = !!findSegment(prefix.padEnd(11, '0')) || SEGMENTS.some((row) => row.prefix.startsWith(prefix));
    t.ok(covered, `libphonenumber knows ${prefix}; the segment table must too`);
  }
});

t.test('every card type is listed in the plugin README', async (t) => {
  const readme = readFileSync('plugins/phone/README.md', 'utf8');
  const types = new Set(SEGMENTS.map((r) => cardTypeOf(r.carrier, r.kind)));
  // phone.dat adds the Broadnet types the table has no row for.
  for (const extra of ['中国广电虚拟运营商']) types.add(extra);
  for (const type of types) t.ok(readme.includes(`\`${type}\``), type);
});

t.test('UTF-8 decoder', async (t) => {
  for (const s of ['', 'abc', '北京|北京', '内蒙古|锡林郭勒盟', 'é€😀x', '𠀋']) {
    t.equal(decodeUtf8(new Uint8Array(Buffer.from(s, 'utf8'))), s, s);
  }
  const bytes = new Uint8Array(Buffer.from('a广东b', 'utf8'));
  t.equal(decodeUtf8(bytes, 1, 4), '广');
  t.equal(decodeUtf8(new Uint8Array([0x61, 0xff, 0x62])), 'a\ufffdb');
  t.equal(decodeUtf8(new Uint8Array([0xe5, 0xb9])), '\ufffd\ufffd', 'truncated sequence');
  t.equal(decodeUtf8(new Uint8Array([0xc0, 0x80])), '\ufffd\ufffd', 'overlong NUL');
  t.equal(decodeUtf8(new Uint8Array([0xed, 0xa0, 0x80])), '\ufffd\ufffd\ufffd', 'surrogate');
});
