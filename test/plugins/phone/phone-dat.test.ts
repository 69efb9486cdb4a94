// An operator's phone.dat answers first for the prefixes it holds; everything else falls back.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { findInPhoneDat, parsePhoneDat } from '../../../plugins/phone/phone-dat.js';
import { buildPhoneDat, type PhoneDatEntry, writePhoneDat } from './phone-dat-builder.js';
import { lookup, phoneHost } from './run.js';

// Deliberately different from libphonenumber's answers, so the test sees which source answered.
const ENTRIES: PhoneDatEntry[] = [
  { prefix: 1380013, province: '浙江', city: '嘉兴', zip: '314000', areaCode: '0573', type: 1 },
  { prefix: 1700123, province: '广东', city: '深圳', zip: '518000', areaCode: '0755', type: 4 },
  { prefix: 1491234, province: '湖北', city: '武汉', zip: '430000', areaCode: '027', type: 3 },
  // An MVNO segment the built-in data never locates, and a record that names a province only.
  { prefix: 1701234, province: '四川', city: '成都', zip: '610000', areaCode: '028', type: 6 },
  { prefix: 1991234, province: '海南', city: '', zip: '', areaCode: '0898', type: 3 },
];

t.test('the prefixes it holds answer from phone.dat', async (t) => {
  const host = phoneHost(t, { phone_dat: writePhoneDat(ENTRIES) });
  t.strictSame(await lookup(host, '13800138000'), {
    ok: true,
    data: {
      phone: '13800138000',
      province: '浙江',
      city: '嘉兴',
      carrier: '中国移动',
      card_type: '中国移动',
      is_virtual: false,
      segment: '138',
      area_code: '0573',
      zip: '314000',
      precision: 'city',
      source: 'phone.dat',
    },
  });
  t.strictSame(await lookup(host, '+86 170 0123 4567'), {
    ok: true,
    data: {
      phone: '17001234567',
      province: '广东',
      city: '深圳',
      carrier: '中国电信',
      card_type: '中国电信虚拟运营商',
      is_virtual: true,
      segment: '1700',
      area_code: '0755',
      zip: '518000',
      precision: 'city',
      source: 'phone.dat',
    },
  });
  // phone.dat cannot say 上网卡: the segment table names the card when both agree on the carrier.
  t.strictSame(await lookup(host, '14912345678'), {
    ok: true,
    data: {
      phone: '14912345678',
      province: '湖北',
      city: '武汉',
      carrier: '中国电信',
      card_type: '中国电信 上网卡',
      is_virtual: false,
      segment: '149',
      area_code: '027',
      zip: '430000',
      precision: 'city',
      source: 'phone.dat',
    },
  });
  t.strictSame(await lookup(host, '17012345678'), {
    ok: true,
    data: {
      phone: '17012345678',
      province: '四川',
      city: '成都',
      carrier: '中国移动',
      card_type: '中国移动虚拟运营商',
      is_virtual: true,
      segment: '1701',
      area_code: '028',
      zip: '610000',
      precision: 'city',
      source: 'phone.dat',
    },
  });
  t.strictSame(await lookup(host, '19912345678'), {
    ok: true,
    data: {
      phone: '19912345678',
      province: '海南',
      city: null,
      carrier: '中国电信',
      card_type: '中国电信',
      is_virtual: false,
      segment: '199',
      area_code: '0898',
      zip: null,
      precision: 'province',
      source: 'phone.dat',
    },
  });
  t.match(host.logs, [{ level: 'info', message: 'phone.dat loaded', fields: { version: '2502', prefixes: 5 } }]);
});

t.test('other prefixes fall back to libphonenumber and the segment table', async (t) => {
  const host = phoneHost(t, { phone_dat: writePhoneDat(ENTRIES) });
  const near = await lookup(host, '13800148000'); // 1380014: next to a phone.dat prefix, not in it
  t.match(near, { ok: true, data: { province: '北京', city: '北京', precision: 'city', source: 'libphonenumber' } });
  const newer = await lookup(host, '19912355678'); // 1991235: phone.dat has 1991234 only
  t.match(newer, {
    ok: true,
    data: { province: null, city: null, carrier: '中国电信', precision: 'none', source: 'libphonenumber' },
  });
  t.match(await lookup(host, '15412345678'), { ok: false, code: 'INVALID_INPUT' });
});

t.test('without the option, the same numbers answer from the built-in data', async (t) => {
  const host = phoneHost(t);
  t.match(await lookup(host, '13800138000'), {
    ok: true,
    data: { province: '北京', city: '北京', source: 'libphonenumber' },
  });
  t.match(await lookup(host, '15012345678'), {
    ok: true,
    data: { province: '云南', city: null, precision: 'province' },
  });
  t.match(await lookup(host, '17012345678'), {
    ok: true,
    data: { province: null, precision: 'none', source: 'libphonenumber' },
  });
});

t.test('a missing or broken phone.dat is logged and skipped', async (t) => {
  const missing = phoneHost(t, { phone_dat: '/nonexistent/phone.dat' });
  t.match(await lookup(missing, '13800138000'), { ok: true, data: { source: 'libphonenumber' } });
  t.match(missing.logs, [{ level: 'warn', message: /not available/ }]);

  const dir = writePhoneDat(ENTRIES).replace(/phone\.dat$/, '');
  const broken = join(dir, 'broken.dat');
  writeFileSync(broken, Buffer.from([1, 2, 3, 4, 200, 0, 0, 0, 9]));
  const host = phoneHost(t, { phone_dat: broken });
  t.match(await lookup(host, '13800138000'), { ok: true, data: { source: 'libphonenumber' } });
  t.match(host.logs, [{ level: 'error', fields: { error: 'phone.dat index offset 200 is outside the file' } }]);
});

t.test('reader: binary search over every entry of a larger file', async (t) => {
  const entries: PhoneDatEntry[] = [];
  for (let i = 0; i < 500; i++) {
    entries.push({
      prefix: 1300000 + i * 37,
      province: `省${i % 7}`,
      city: `市${i % 11}`,
      zip: '',
      areaCode: '',
      type: (i % 8) + 1,
    });
  }
  const bytes = buildPhoneDat(entries);
  const dat = parsePhoneDat(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer);
  t.equal(dat.count, 500);
  for (const [i, e] of entries.entries()) {
    const hit = findInPhoneDat(dat, e.prefix);
    if (!hit || hit.province !== e.province || hit.city !== e.city) t.fail(`entry ${i}`);
    if (findInPhoneDat(dat, e.prefix + 1) !== null) t.fail(`neighbour of entry ${i}`);
  }
  t.match(findInPhoneDat(dat, 1300000), { zip: null, area_code: null, carrier: '中国移动' });
  t.equal(findInPhoneDat(dat, 1299999), null);
});
