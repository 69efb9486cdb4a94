// Splits libphonenumber's single place string ("广东省深圳市", "内蒙古包头市", "北京市") into the short
// province and city names phone.dat uses ("广东" / "深圳"), and answers every prefecture by its current name.

/** Province-level cities: their province is their city. */
export const MUNICIPALITIES: readonly string[] = ['北京', '上海', '天津', '重庆'];
/** Autonomous regions appear in the data without 自治区 ("广西南宁市"). */
const REGIONS = ['内蒙古', '广西', '宁夏', '新疆', '西藏'];

export interface PrefectureChange {
  province: string;
  /** The name as older data writes it (after dropping a trailing 市). */
  old: string;
  /** The prefecture-level city that answers for it today. */
  current: string;
  /** renamed: same area, new name or 地区 -> 市; merged: abolished, its area now under `current`. */
  kind: 'renamed' | 'merged';
  /** Year the State Council (国务院) approved the change. */
  year: number;
  /** Where the change is documented: the zh.wikipedia page of the city that answers today. */
  source: string;
}

/**
 * Every prefecture-level change since 2000 that a number-location table can still carry, in one place.
 * Names libphonenumber's zh data does not contain are listed too, so an older or operator-supplied source
 * gets the same treatment. Abolished prefectures answer the city that took their seat: 巢湖's seat (居巢区,
 * now 县级巢湖市) went to 合肥, 莱芜 became two districts of 济南.
 */
export const PREFECTURE_CHANGES: readonly PrefectureChange[] = [
  { province: '安徽', old: '巢湖', current: '合肥', kind: 'merged', year: 2011, source: 'zh.wikipedia 巢湖市' },
  { province: '山东', old: '莱芜', current: '济南', kind: 'merged', year: 2019, source: 'zh.wikipedia 莱芜区' },
  { province: '湖北', old: '襄樊', current: '襄阳', kind: 'renamed', year: 2010, source: 'zh.wikipedia 襄阳市' },
  { province: '云南', old: '思茅', current: '普洱', kind: 'renamed', year: 2007, source: 'zh.wikipedia 普洱市' },
  { province: '贵州', old: '毕节地区', current: '毕节', kind: 'renamed', year: 2011, source: 'zh.wikipedia 毕节市' },
  { province: '贵州', old: '铜仁地区', current: '铜仁', kind: 'renamed', year: 2011, source: 'zh.wikipedia 铜仁市' },
  { province: '青海', old: '海东地区', current: '海东', kind: 'renamed', year: 2013, source: 'zh.wikipedia 海东市' },
  {
    province: '西藏',
    old: '日喀则地区',
    current: '日喀则',
    kind: 'renamed',
    year: 2014,
    source: 'zh.wikipedia 日喀则市',
  },
  { province: '西藏', old: '昌都地区', current: '昌都', kind: 'renamed', year: 2014, source: 'zh.wikipedia 昌都市' },
  { province: '西藏', old: '林芝地区', current: '林芝', kind: 'renamed', year: 2015, source: 'zh.wikipedia 林芝市' },
  { province: '西藏', old: '山南地区', current: '山南', kind: 'renamed', year: 2016, source: 'zh.wikipedia 山南市' },
  { province: '西藏', old: '那曲地区', current: '那曲', kind: 'renamed', year: 2017, source: 'zh.wikipedia 那曲市' },
  {
    province: '新疆',
    old: '吐鲁番地区',
    current: '吐鲁番',
    kind: 'renamed',
    year: 2015,
    source: 'zh.wikipedia 吐鲁番市',
  },
  { province: '新疆', old: '哈密地区', current: '哈密', kind: 'renamed', year: 2016, source: 'zh.wikipedia 哈密市' },
  { province: '四川', old: '达川地区', current: '达州', kind: 'renamed', year: 1999, source: 'zh.wikipedia 达州市' },
  { province: '四川', old: '巴中地区', current: '巴中', kind: 'renamed', year: 2000, source: 'zh.wikipedia 巴中市' },
  { province: '四川', old: '雅安地区', current: '雅安', kind: 'renamed', year: 2000, source: 'zh.wikipedia 雅安市' },
  { province: '四川', old: '眉山地区', current: '眉山', kind: 'renamed', year: 2000, source: 'zh.wikipedia 眉山市' },
  { province: '四川', old: '资阳地区', current: '资阳', kind: 'renamed', year: 2000, source: 'zh.wikipedia 资阳市' },
  { province: '四川', old: '宜宾地区', current: '宜宾', kind: 'renamed', year: 1996, source: 'zh.wikipedia 宜宾市' },
  {
    province: '内蒙古',
    old: '乌兰察布盟',
    current: '乌兰察布',
    kind: 'renamed',
    year: 2003,
    source: 'zh.wikipedia 乌兰察布市',
  },
  {
    province: '内蒙古',
    old: '巴彦淖尔盟',
    current: '巴彦淖尔',
    kind: 'renamed',
    year: 2003,
    source: 'zh.wikipedia 巴彦淖尔市',
  },
  { province: '内蒙古', old: '哲里木盟', current: '通辽', kind: 'renamed', year: 1999, source: 'zh.wikipedia 通辽市' },
  {
    province: '内蒙古',
    old: '伊克昭盟',
    current: '鄂尔多斯',
    kind: 'renamed',
    year: 2001,
    source: 'zh.wikipedia 鄂尔多斯市',
  },
  { province: '广西', old: '百色地区', current: '百色', kind: 'renamed', year: 2002, source: 'zh.wikipedia 百色市' },
  { province: '广西', old: '河池地区', current: '河池', kind: 'renamed', year: 2002, source: 'zh.wikipedia 河池市' },
  { province: '广西', old: '贺州地区', current: '贺州', kind: 'renamed', year: 2002, source: 'zh.wikipedia 贺州市' },
  { province: '云南', old: '临沧地区', current: '临沧', kind: 'renamed', year: 2003, source: 'zh.wikipedia 临沧市' },
  { province: '云南', old: '丽江地区', current: '丽江', kind: 'renamed', year: 2002, source: 'zh.wikipedia 丽江市' },
  { province: '云南', old: '保山地区', current: '保山', kind: 'renamed', year: 2000, source: 'zh.wikipedia 保山市' },
  { province: '云南', old: '昭通地区', current: '昭通', kind: 'renamed', year: 2001, source: 'zh.wikipedia 昭通市' },
  { province: '甘肃', old: '陇南地区', current: '陇南', kind: 'renamed', year: 2004, source: 'zh.wikipedia 陇南市' },
  { province: '甘肃', old: '定西地区', current: '定西', kind: 'renamed', year: 2003, source: 'zh.wikipedia 定西市' },
  { province: '甘肃', old: '庆阳地区', current: '庆阳', kind: 'renamed', year: 2002, source: 'zh.wikipedia 庆阳市' },
  { province: '甘肃', old: '平凉地区', current: '平凉', kind: 'renamed', year: 2002, source: 'zh.wikipedia 平凉市' },
  { province: '甘肃', old: '酒泉地区', current: '酒泉', kind: 'renamed', year: 2002, source: 'zh.wikipedia 酒泉市' },
  { province: '甘肃', old: '张掖地区', current: '张掖', kind: 'renamed', year: 2002, source: 'zh.wikipedia 张掖市' },
  { province: '甘肃', old: '武威地区', current: '武威', kind: 'renamed', year: 2001, source: 'zh.wikipedia 武威市' },
  { province: '陕西', old: '商洛地区', current: '商洛', kind: 'renamed', year: 2001, source: 'zh.wikipedia 商洛市' },
  { province: '陕西', old: '安康地区', current: '安康', kind: 'renamed', year: 2000, source: 'zh.wikipedia 安康市' },
  { province: '山西', old: '吕梁地区', current: '吕梁', kind: 'renamed', year: 2003, source: 'zh.wikipedia 吕梁市' },
  { province: '山西', old: '忻州地区', current: '忻州', kind: 'renamed', year: 2000, source: 'zh.wikipedia 忻州市' },
  { province: '山西', old: '临汾地区', current: '临汾', kind: 'renamed', year: 2000, source: 'zh.wikipedia 临汾市' },
  { province: '山西', old: '运城地区', current: '运城', kind: 'renamed', year: 2000, source: 'zh.wikipedia 运城市' },
  { province: '安徽', old: '池州地区', current: '池州', kind: 'renamed', year: 2000, source: 'zh.wikipedia 池州市' },
  { province: '安徽', old: '宣城地区', current: '宣城', kind: 'renamed', year: 2000, source: 'zh.wikipedia 宣城市' },
  { province: '安徽', old: '六安地区', current: '六安', kind: 'renamed', year: 1999, source: 'zh.wikipedia 六安市' },
  { province: '宁夏', old: '固原地区', current: '固原', kind: 'renamed', year: 2001, source: 'zh.wikipedia 固原市' },
  { province: '贵州', old: '安顺地区', current: '安顺', kind: 'renamed', year: 2000, source: 'zh.wikipedia 安顺市' },
  { province: '陕西', old: '榆林地区', current: '榆林', kind: 'renamed', year: 1999, source: 'zh.wikipedia 榆林市' },
  { province: '山西', old: '晋中地区', current: '晋中', kind: 'renamed', year: 1999, source: 'zh.wikipedia 晋中市' },
  { province: '湖南', old: '娄底地区', current: '娄底', kind: 'renamed', year: 1999, source: 'zh.wikipedia 娄底市' },
  { province: '江西', old: '上饶地区', current: '上饶', kind: 'renamed', year: 2000, source: 'zh.wikipedia 上饶市' },
  { province: '江西', old: '吉安地区', current: '吉安', kind: 'renamed', year: 2000, source: 'zh.wikipedia 吉安市' },
  { province: '江西', old: '宜春地区', current: '宜春', kind: 'renamed', year: 2000, source: 'zh.wikipedia 宜春市' },
  { province: '江西', old: '抚州地区', current: '抚州', kind: 'renamed', year: 2000, source: 'zh.wikipedia 抚州市' },
];

const CURRENT: ReadonlyMap<string, string> = new Map(
  PREFECTURE_CHANGES.map((c) => [`${c.province}|${c.old}`, c.current]),
);

export function splitPlace(full: string): { province: string; city: string } {
  for (const m of MUNICIPALITIES) {
    if (full === m || full === `${m}市`) return { province: m, city: m };
  }
  for (const r of REGIONS) {
    if (full.startsWith(r) && full.length > r.length) return currentName(r, full.slice(r.length));
  }
  const i = full.indexOf('省');
  if (i > 0 && i < full.length - 1) return currentName(full.slice(0, i), full.slice(i + 1));
  // Fail the build rather than ship a place the plugin would show half-parsed.
  throw new Error(`phone asset: cannot split place name "${full}" into province and city`);
}

function currentName(province: string, raw: string): { province: string; city: string } {
  const city = raw.endsWith('市') && raw.length > 2 ? raw.slice(0, -1) : raw;
  return { province, city: CURRENT.get(`${province}|${city}`) ?? city };
}
