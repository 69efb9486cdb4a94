// One number per carrier and segment kind, each with every output field spelled out.
import t from 'tap';
import type { PhoneData } from '../../../plugins/phone/lookup.js';
import { lookup, phoneHost } from './run.js';

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
  precision: PhoneData['precision'],
];

const CASES: Row[] = [
  // a 7-digit libphonenumber entry is evidence for the city (area code/zip only for cities in area-codes.ts)
  ['13800640000', '北京', '北京', '中国移动', '中国移动', false, '138', '010', '100000', 'city'],
  ['13400000000', '江苏', '无锡', '中国移动', '中国移动', false, '134', '0510', '214000', 'city'],
  ['15312345678', '江苏', '淮安', '中国电信', '中国电信', false, '153', null, null, 'city'],
  ['17712345678', '江苏', '常州', '中国电信', '中国电信', false, '177', null, null, 'city'],
  ['18012345678', '江苏', '扬州', '中国电信', '中国电信', false, '180', null, null, 'city'],
  ['18912345678', '江苏', '常州', '中国电信', '中国电信', false, '189', null, null, 'city'],
  // a shorter entry whose more specific entries all agree on the province: the province only, no area code
  ['13312345678', '贵州', null, '中国电信', '中国电信', false, '133', null, null, 'province'],
  ['15012345678', '云南', null, '中国移动', '中国移动', false, '150', null, null, 'province'],
  // ... and when that province is a municipality, it is the city as well
  ['13800138000', '北京', '北京', '中国移动', '中国移动', false, '138', '010', '100000', 'city'],
  ['13012345678', '重庆', '重庆', '中国联通', '中国联通', false, '130', '023', '400000', 'city'],
  ['17612345678', '重庆', '重庆', '中国联通', '中国联通', false, '176', '023', '400000', 'city'],
  // "1861 北京市" has more specific entries in other provinces (18616 上海, ...): no location
  ['18612345678', null, null, '中国联通', '中国联通', false, '186', null, null, 'none'],
  // a 5-digit entry with nothing under it (18516 上海市, a whole 100-prefix block from one claim): no location
  ['18516123456', null, null, '中国联通', '中国联通', false, '185', null, null, 'none'],
  // a segment the data covers, at a prefix it does not
  ['17812345678', null, null, '中国移动', '中国移动', false, '178', null, null, 'none'],
  // segments newer than libphonenumber's data: carrier and card type, no place
  ['16612345678', null, null, '中国联通', '中国联通', false, '166', null, null, 'none'],
  ['17212345678', null, null, '中国移动', '中国移动', false, '172', null, null, 'none'],
  ['17312345678', null, null, '中国电信', '中国电信', false, '173', null, null, 'none'],
  ['17512345678', null, null, '中国联通', '中国联通', false, '175', null, null, 'none'],
  ['19012345678', null, null, '中国电信', '中国电信', false, '190', null, null, 'none'],
  ['19212345678', null, null, '中国广电', '中国广电', false, '192', null, null, 'none'],
  ['19512345678', null, null, '中国移动', '中国移动', false, '195', null, null, 'none'],
  ['19612345678', null, null, '中国联通', '中国联通', false, '196', null, null, 'none'],
  ['19712345678', null, null, '中国移动', '中国移动', false, '197', null, null, 'none'],
  ['19812345678', null, null, '中国移动', '中国移动', false, '198', null, null, 'none'],
  ['19912345678', null, null, '中国电信', '中国电信', false, '199', null, null, 'none'],
  // virtual operators (MVNO): libphonenumber has places for 170x, but they are the reseller's, never guessed
  ['17001234567', null, null, '中国电信', '中国电信虚拟运营商', true, '1700', null, null, 'none'],
  ['17031234567', null, null, '中国移动', '中国移动虚拟运营商', true, '1703', null, null, 'none'],
  ['17041234567', null, null, '中国联通', '中国联通虚拟运营商', true, '1704', null, null, 'none'],
  ['17112345678', null, null, '中国联通', '中国联通虚拟运营商', true, '171', null, null, 'none'],
  ['16212345678', null, null, '中国电信', '中国电信虚拟运营商', true, '162', null, null, 'none'],
  ['16512345678', null, null, '中国移动', '中国移动虚拟运营商', true, '165', null, null, 'none'],
  ['16712345678', null, null, '中国联通', '中国联通虚拟运营商', true, '167', null, null, 'none'],
  // data cards (上网卡): libphonenumber lists 145/147 places, but a data card has no home city to stand behind
  ['14512345678', null, null, '中国联通', '中国联通 上网卡', false, '145', null, null, 'none'],
  ['14712345678', null, null, '中国移动', '中国移动 上网卡', false, '147', null, null, 'none'],
  ['14912345678', null, null, '中国电信', '中国电信 上网卡', false, '149', null, null, 'none'],
  // 13-digit IoT numbers
  ['1440123456789', null, null, '中国移动', '中国移动 物联网卡', false, '1440', null, null, 'none'],
  ['1410123456789', null, null, '中国电信', '中国电信 物联网卡', false, '1410', null, null, 'none'],
  ['1461234567890', null, null, '中国联通', '中国联通 物联网卡', false, '146', null, null, 'none'],
  ['1481234567890', null, null, '中国移动', '中国移动 物联网卡', false, '148', null, null, 'none'],
  // satellite and emergency blocks (libphonenumber's "1349 北京市" is the operator's seat)
  ['13491234567', null, null, '中国电信', '卫星电话', false, '1349', null, null, 'none'],
  ['17400123456', null, null, '中国电信', '卫星电话', false, '17400', null, null, 'none'],
  ['17491234567', null, null, null, '卫星电话', false, '1749', null, null, 'none'],
  ['17406123456', null, null, null, '应急通信', false, '17406', null, null, 'none'],
  ['17412123456', null, null, null, '应急通信', false, '17412', null, null, 'none'],
];

t.test('every carrier, segment kind and precision, every field', async (t) => {
  const host = phoneHost(t);
  for (const [phone, province, city, carrier, card_type, is_virtual, segment, area_code, zip, precision] of CASES) {
    const expected: PhoneData = {
      phone,
      province,
      city,
      carrier,
      card_type,
      is_virtual,
      segment,
      area_code,
      zip,
      precision,
      source: 'libphonenumber',
    };
    t.strictSame(await lookup(host, phone), { ok: true, data: expected }, phone);
  }
});

// Old names in libphonenumber's data, each at a 7-digit prefix the data lists under that name.
const RENAMED: Array<[phone: string, province: string, city: string, oldName: string]> = [
  ['13000020000', '安徽', '合肥', '巢湖'],
  ['13002760000', '山东', '济南', '莱芜'],
  ['13035200000', '湖北', '襄阳', '襄樊'],
  ['13017060000', '贵州', '毕节', '毕节地区'],
  ['13017000000', '贵州', '铜仁', '铜仁地区'],
  ['13007720000', '青海', '海东', '海东地区'],
  ['13228920000', '西藏', '日喀则', '日喀则地区'],
  ['13228950000', '西藏', '昌都', '昌都地区'],
  ['13228940000', '西藏', '林芝', '林芝地区'],
  ['13228930000', '西藏', '山南', '山南地区'],
  ['13228960000', '西藏', '那曲', '那曲地区'],
  ['13031200000', '新疆', '吐鲁番', '吐鲁番地区'],
  ['13031210000', '新疆', '哈密', '哈密地区'],
];

t.test('renamed and merged prefectures answer their current name', async (t) => {
  const host = phoneHost(t);
  for (const [phone, province, city, oldName] of RENAMED) {
    t.match(
      await lookup(host, phone),
      { ok: true, data: { province, city, precision: 'city' } },
      `${phone} (${oldName})`,
    );
  }
});

t.test('written forms normalise to the same 11 digits', async (t) => {
  const host = phoneHost(t);
  for (const form of [
    '13800138000',
    ' 13800138000 ',
    '+8613800138000',
    '+86 138 0013 8000',
    '+86-138-0013-8000',
    '8613800138000',
    '86 138 0013 8000',
    '008613800138000',
    '0086 138-0013-8000',
    '138 0013 8000',
    '138-0013-8000',
  ]) {
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
