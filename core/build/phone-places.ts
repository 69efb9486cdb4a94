// Splits libphonenumber's single place string ("广东省深圳市", "内蒙古包头市", "北京市") into the short
// province and city names phone.dat uses ("广东" / "深圳"), so both sources answer alike.

const MUNICIPALITIES = ['北京', '上海', '天津', '重庆'];
/** Autonomous regions appear in the data without 自治区 ("广西南宁市"). */
const REGIONS = ['内蒙古', '广西', '宁夏', '新疆', '西藏'];

/**
 * Prefectures renamed or turned into cities since libphonenumber's data was written. Only renames of the
 * same area: abolished ones (巢湖, 莱芜) were split or merged and are kept as the data has them.
 */
const RENAMED: Readonly<Record<string, string>> = {
  襄樊: '襄阳',
  毕节地区: '毕节',
  铜仁地区: '铜仁',
  吐鲁番地区: '吐鲁番',
  哈密地区: '哈密',
  日喀则地区: '日喀则',
  昌都地区: '昌都',
  林芝地区: '林芝',
  山南地区: '山南',
  那曲地区: '那曲',
  海东地区: '海东',
};

export function splitPlace(full: string): { province: string; city: string } {
  for (const m of MUNICIPALITIES) {
    if (full === m || full === `${m}市`) return { province: m, city: m };
  }
  for (const r of REGIONS) {
    if (full.startsWith(r) && full.length > r.length) return { province: r, city: cityName(full.slice(r.length)) };
  }
  const i = full.indexOf('省');
  if (i > 0 && i < full.length - 1) return { province: full.slice(0, i), city: cityName(full.slice(i + 1)) };
  // Fail the build rather than ship a place the plugin would show half-parsed.
  throw new Error(`phone asset: cannot split place name "${full}" into province and city`);
}

function cityName(raw: string): string {
  const city = raw.endsWith('市') && raw.length > 2 ? raw.slice(0, -1) : raw;
  return RENAMED[city] ?? city;
}
