// The precision rule on small hand-made tables (every branch), the current-names table, and the measure on
// the real data: the share of 7-digit prefixes answered at each precision, printed for the report.
import t from 'tap';
import { encodeGeoAsset, locatableSegment, readLibphonenumberChina } from '../../../core/build/phone-asset.js';
import { PREFECTURE_CHANGES, splitPlace } from '../../../core/build/phone-places.js';
import {
  agreedProvinces,
  precisionOf,
  type ResolvedPlace,
  resolvePrefix,
} from '../../../core/build/phone-precision.js';

const everywhere = (): boolean => true;

function resolveAll(geocodes: Record<string, string>, prefixes: number[]): Array<ResolvedPlace | null> {
  const agreed = agreedProvinces(geocodes);
  return prefixes.map((p) => resolvePrefix(p, geocodes, agreed, everywhere));
}

t.test('a 7-digit entry is a city; a shorter one is at most a province', async (t) => {
  const g = { '1380000': '广东省深圳市', '138001': '广东省广州市', '1380011': '广东省佛山市' };
  t.strictSame(resolveAll(g, [1380000, 1380011, 1380012, 1380019]), [
    { province: '广东', city: '深圳' },
    { province: '广东', city: '佛山' },
    { province: '广东', city: null }, // 138001 with an exception in the same province
    { province: '广东', city: null },
  ]);
});

t.test('a municipality known at province level is known at city level', async (t) => {
  const g = { '138001': '北京市', '13001': '重庆市', '1300123': '重庆市', '133123': '贵州省遵义市' };
  t.strictSame(resolveAll(g, [1380013, 1300100, 1331234]), [
    { province: '北京', city: '北京' },
    { province: '重庆', city: '重庆' },
    { province: '贵州', city: null },
  ]);
});

t.test('a short entry with a more specific entry in another province answers no location', async (t) => {
  const g = { '13052': '上海市', '130527': '辽宁省大连市', '1305281': '江苏省苏州市', '1305290': '上海市' };
  const [under, other, exception] = resolveAll(g, [1305200, 1305280, 1305270]);
  t.equal(under, null, '13052 上海 is contradicted by 130527 辽宁 and 1305281 江苏');
  t.equal(other, null, '1305280 falls back to 13052 as well');
  t.strictSame(exception, { province: '辽宁', city: null }, '130527 itself has nothing under it: ten known prefixes');
});

t.test('agreement looks at every depth under the short entry, not only its children', async (t) => {
  const g = { '1861': '河北省石家庄市', '18613': '河北省保定市', '1861349': '山西省太原市' };
  t.equal(resolveAll(g, [1861000])[0], null, 'a grandchild in 山西 breaks 1861 河北');
  t.strictSame(
    resolveAll({ '1861': '河北省石家庄市', '18613': '河北省保定市', '1861349': '河北省唐山市' }, [1861000])[0],
    {
      province: '河北',
      city: null,
    },
  );
});

t.test('with nothing under it: a 6-digit entry keeps its province, a 4/5-digit one does not', async (t) => {
  // A 6-digit entry stands for ten prefixes that were all known alike (the data never gives a gappy group a
  // parent); a bare 4/5-digit entry covers 100/1,000 prefixes from one claim, the shape of a default.
  const g = { '178000': '浙江省杭州市', '1784': '吉林省长春市', '18516': '上海市' };
  t.strictSame(resolveAll(g, [1780005, 1784123, 1851600]), [{ province: '浙江', city: null }, null, null]);
});

t.test('segments without home locations never get one, whatever the data says', async (t) => {
  const g = { '1700123': '北京市', '1451': '北京市', '1380064': '北京市' };
  const agreed = agreedProvinces(g);
  t.equal(resolvePrefix(1700123, g, agreed, locatableSegment), null, 'MVNO');
  t.equal(resolvePrefix(1451000, g, agreed, locatableSegment), null, 'data card');
  t.strictSame(resolvePrefix(1380064, g, agreed, locatableSegment), { province: '北京', city: '北京' });
  t.equal(precisionOf(null), 'none');
  t.equal(precisionOf({ province: '北京', city: null }), 'province');
  t.equal(precisionOf({ province: '北京', city: '北京' }), 'city');
});

t.test('current names come from one table with a source per row', async (t) => {
  const seen = new Set<string>();
  for (const c of PREFECTURE_CHANGES) {
    const key = `${c.province}|${c.old}`;
    t.notOk(seen.has(key), `one row per old name: ${key}`);
    seen.add(key);
    t.ok(c.year >= 1996 && c.year <= 2026, `${key}: year ${c.year}`);
    t.match(c.source, /^zh\.wikipedia \S+/, `${key}: source`);
    t.notOk(
      PREFECTURE_CHANGES.some((d) => d.province === c.province && d.old === c.current),
      `${key}: ${c.current} is current`,
    );
  }
  t.strictSame(splitPlace('安徽省巢湖市'), { province: '安徽', city: '合肥' });
  t.strictSame(splitPlace('山东省莱芜市'), { province: '山东', city: '济南' });
  t.strictSame(splitPlace('湖北省襄樊市'), { province: '湖北', city: '襄阳' });
  t.strictSame(splitPlace('云南省思茅市'), { province: '云南', city: '普洱' });
  t.strictSame(splitPlace('西藏那曲地区'), { province: '西藏', city: '那曲' });
  t.strictSame(splitPlace('新疆哈密地区'), { province: '新疆', city: '哈密' });
  t.strictSame(splitPlace('内蒙古乌兰察布盟'), { province: '内蒙古', city: '乌兰察布' });
  // Still prefectures (地区/盟) today: unchanged.
  t.strictSame(splitPlace('新疆和田地区'), { province: '新疆', city: '和田地区' });
  t.strictSame(splitPlace('内蒙古锡林郭勒盟'), { province: '内蒙古', city: '锡林郭勒盟' });
});

t.test('no old name survives in the built data', async (t) => {
  const { geocodes } = readLibphonenumberChina();
  const old = new Set(PREFECTURE_CHANGES.map((c) => `${c.province}|${c.old}`));
  const places = new Set(
    Object.entries(geocodes)
      .filter(([k]) => /^1[3-9]\d{2,5}$/.test(k))
      .map(([, v]) => v),
  );
  for (const full of places) {
    const { province, city } = splitPlace(full);
    if (old.has(`${province}|${city}`)) t.fail(`${full} still answers ${city}`);
  }
  t.ok(places.size > 300);
});

t.test('the data still has the shape the rule relies on', async (t) => {
  // If a libphonenumber update changes how its table is compressed, the reasons in phone-precision.ts no
  // longer hold: fail here rather than answer with a precision the data does not support.
  const { geocodes } = readLibphonenumberChina();
  const keys = Object.keys(geocodes)
    .filter((k) => /^1[3-9]\d{2,5}$/.test(k))
    .sort();
  let repeats = 0;
  let wideSixes = 0;
  for (const [i, key] of keys.entries()) {
    for (let len = key.length - 1; len >= 4; len--) {
      const parent = geocodes[key.slice(0, len)];
      if (parent === undefined) continue;
      if (parent === geocodes[key]) repeats++;
      break;
    }
    if (key.length === 6) {
      let under = 0;
      for (let j = i + 1; j < keys.length && keys[j]!.startsWith(key); j++) under++;
      if (under > 4) wideSixes++;
    }
  }
  t.equal(repeats, 0, 'a more specific key never repeats the place of the key it falls under');
  t.equal(wideSixes, 0, 'a 6-digit key covers at least 6 of its 10 prefixes itself');
});

t.test('measure: 7-digit prefixes per precision level in the embedded data', async (t) => {
  const { precision } = encodeGeoAsset(readLibphonenumberChina().geocodes);
  const total = precision.city + precision.province + precision.none;
  const pct = (n: number): string => `${((100 * n) / total).toFixed(1)}%`;
  const located = precision.city + precision.province;
  t.comment(`7-digit prefixes 1300000-1999999: ${total}`);
  t.comment(`  city      ${precision.city} (${pct(precision.city)})`);
  t.comment(`  province  ${precision.province} (${pct(precision.province)})`);
  t.comment(
    `  none      ${precision.none} (${pct(precision.none)}), of which ${precision.noneBySegment} in segments without location data`,
  );
  t.comment(`  of the prefixes the data locates at all: city ${((100 * precision.city) / located).toFixed(1)}%`);
  t.equal(total, 700_000);
  t.ok(precision.noneBySegment <= precision.none);
});
