// One number per carrier and segment kind, each with every output field spelled out.
import t from 'tap';
import type { PhoneData } from '../../../plugins/phone/lookup.js';
import { lookup, phoneHost } from './run.js';

const LIB = 'libphonenumber';
const NO_SEGMENT = 'segment_table (no location data for this segment)';
const NO_PREFIX = 'segment_table (no location data for this prefix)';

type Row = [
  phone: string,
  province: string | null,
  city: string | null,
  carrier: PhoneData['carrier'],
  cardType: string,
  isVirtual: boolean,
  segment: string,
  areaCode: string | null,
  zip: string | null,
  source: string,
];

const CASES: Row[] = [
  // basic segments with libphonenumber locations (area code/zip only for the cities in area-codes.ts)
  ['13800138000', '北京', '北京', '中国移动', '中国移动', false, '138', '010', '100000', LIB],
  ['13012345678', '重庆', '重庆', '中国联通', '中国联通', false, '130', '023', '400000', LIB],
  ['13312345678', '贵州', '遵义', '中国电信', '中国电信', false, '133', null, null, LIB],
  ['13400000000', '江苏', '无锡', '中国移动', '中国移动', false, '134', '0510', '214000', LIB],
  ['15012345678', '云南', '昭通', '中国移动', '中国移动', false, '150', null, null, LIB],
  ['15312345678', '江苏', '淮安', '中国电信', '中国电信', false, '153', null, null, LIB],
  ['17612345678', '重庆', '重庆', '中国联通', '中国联通', false, '176', '023', '400000', LIB],
  ['17712345678', '江苏', '常州', '中国电信', '中国电信', false, '177', null, null, LIB],
  ['18012345678', '江苏', '扬州', '中国电信', '中国电信', false, '180', null, null, LIB],
  ['18612345678', '北京', '北京', '中国联通', '中国联通', false, '186', '010', '100000', LIB],
  ['18912345678', '江苏', '常州', '中国电信', '中国电信', false, '189', null, null, LIB],
  // segments newer than libphonenumber's data: carrier and card type, no place
  ['16612345678', null, null, '中国联通', '中国联通', false, '166', null, null, NO_SEGMENT],
  ['17212345678', null, null, '中国移动', '中国移动', false, '172', null, null, NO_SEGMENT],
  ['17312345678', null, null, '中国电信', '中国电信', false, '173', null, null, NO_SEGMENT],
  ['17512345678', null, null, '中国联通', '中国联通', false, '175', null, null, NO_SEGMENT],
  ['19012345678', null, null, '中国电信', '中国电信', false, '190', null, null, NO_SEGMENT],
  ['19212345678', null, null, '中国广电', '中国广电', false, '192', null, null, NO_SEGMENT],
  ['19512345678', null, null, '中国移动', '中国移动', false, '195', null, null, NO_SEGMENT],
  ['19612345678', null, null, '中国联通', '中国联通', false, '196', null, null, NO_SEGMENT],
  ['19712345678', null, null, '中国移动', '中国移动', false, '197', null, null, NO_SEGMENT],
  ['19812345678', null, null, '中国移动', '中国移动', false, '198', null, null, NO_SEGMENT],
  ['19912345678', null, null, '中国电信', '中国电信', false, '199', null, null, NO_SEGMENT],
  // a segment the data covers, at a prefix it does not
  ['17812345678', null, null, '中国移动', '中国移动', false, '178', null, null, NO_PREFIX],
  // virtual operators (MVNO)
  ['17001234567', '北京', '北京', '中国电信', '中国电信虚拟运营商', true, '1700', '010', '100000', LIB],
  ['17031234567', null, null, '中国移动', '中国移动虚拟运营商', true, '1703', null, null, NO_SEGMENT],
  ['17041234567', null, null, '中国联通', '中国联通虚拟运营商', true, '1704', null, null, NO_SEGMENT],
  ['17112345678', null, null, '中国联通', '中国联通虚拟运营商', true, '171', null, null, NO_SEGMENT],
  ['16212345678', null, null, '中国电信', '中国电信虚拟运营商', true, '162', null, null, NO_SEGMENT],
  ['16512345678', null, null, '中国移动', '中国移动虚拟运营商', true, '165', null, null, NO_SEGMENT],
  ['16712345678', null, null, '中国联通', '中国联通虚拟运营商', true, '167', null, null, NO_SEGMENT],
  // data cards (上网卡)
  ['14512345678', '北京', '北京', '中国联通', '中国联通 上网卡', false, '145', '010', '100000', LIB],
  ['14712345678', '四川', '成都', '中国移动', '中国移动 上网卡', false, '147', '028', '610000', LIB],
  ['14912345678', null, null, '中国电信', '中国电信 上网卡', false, '149', null, null, NO_SEGMENT],
  // 13-digit IoT numbers
  ['1440123456789', null, null, '中国移动', '中国移动 物联网卡', false, '1440', null, null, NO_SEGMENT],
  ['1410123456789', null, null, '中国电信', '中国电信 物联网卡', false, '1410', null, null, NO_SEGMENT],
  ['1461234567890', null, null, '中国联通', '中国联通 物联网卡', false, '146', null, null, NO_SEGMENT],
  ['1481234567890', null, null, '中国移动', '中国移动 物联网卡', false, '148', null, null, NO_SEGMENT],
  // satellite and emergency blocks
  ['13491234567', '北京', '北京', '中国电信', '卫星电话', false, '1349', '010', '100000', LIB],
  ['17400123456', null, null, '中国电信', '卫星电话', false, '17400', null, null, NO_SEGMENT],
  ['17491234567', null, null, null, '卫星电话', false, '1749', null, null, NO_SEGMENT],
  ['17406123456', null, null, null, '应急通信', false, '17406', null, null, NO_SEGMENT],
  ['17412123456', null, null, null, '应急通信', false, '17412', null, null, NO_SEGMENT],
];

t.test('every carrier and segment kind, every field', async (t) => {
  const host = phoneHost(t);
  for (const [phone, province, city, carrier, card_type, is_virtual, segment, area_code, zip, source] of CASES) {
    const expected: PhoneData = { phone, province, city, carrier, card_type, is_virtual, segment, area_code, zip, source };
    t.strictSame(await lookup(host, phone), { ok: true, data: expected }, phone);
  }
});

t.test('written forms normalise to the same 11 digits', async (t) => {
  const host = phoneHost(t);
  for (const form of ['13800138000', ' 13800138000 ', '+8613800138000', '+86 138 0013 8000', '+86-138-0013-8000',
    '8613800138000', '86 138 0013 8000', '008613800138000', '0086 138-0013-8000', '138 0013 8000', '138-0013-8000']) {
    const out = await lookup(host, form);
    t.ok(out.ok, form);
    if (out.ok) t.equal(out.data.phone, '13800138000', form);
  }
});

t.test('the table is loaded once and reused across calls', async (t) => {
  const host = phoneHost(t);
  let reads = 0;
  const counting = { ...host, asset: (name: string) => (reads++, host.asset(name)) };
  const { plugin } = await import('../../../plugins/phone/handler.js');
  await plugin.run({ phone: '13800138000' }, counting);
  await plugin.run({ phone: '18612345678' }, counting);
  // Earlier tests in this file already loaded geo.bin in this module instance.
  t.equal(reads, 0);
});
