// Turns what people type ("+86 138-0013-8000", "0086 13800138000") into bare national digits, and says
// precisely why when it cannot. The messages are public: callers see them as the INVALID_INPUT message, each
// in their own language (English and Chinese).

/** A public message in both languages. */
export interface Said {
  en: string;
  zh: string;
}
const say = (en: string, zh: string): Said => ({ en, zh });

export type Normalised = { ok: true; digits: string } | { ok: false; message: Said };

const ALLOWED = 'only digits, spaces, dashes and a leading +86 are allowed';
const ALLOWED_ZH = '只允许数字、空格、短横线和开头的 +86';
const no = (en: string, zh: string): Normalised => ({ ok: false, message: say(en, zh) });

export function normalisePhone(raw: unknown): Normalised {
  if (typeof raw !== 'string') return no('phone must be a string', 'phone 必须是字符串');
  const text = raw.trim();
  if (text === '') return no('phone is empty', 'phone 为空');
  if (/\p{L}/u.test(text)) return no(`phone contains letters: ${ALLOWED}`, `phone 含有字母：${ALLOWED_ZH}`);
  const odd = /[^\d\s+-]/u.exec(text);
  if (odd) return no(`phone contains "${odd[0]}": ${ALLOWED}`, `phone 含有“${odd[0]}”：${ALLOWED_ZH}`);
  if (text.lastIndexOf('+') > 0) {
    return no(`phone contains "+" after the start: ${ALLOWED}`, `phone 在开头之后含有“+”：${ALLOWED_ZH}`);
  }

  let digits = text.replace(/[\s-]/gu, '');
  if (digits.startsWith('+')) {
    if (!digits.startsWith('+86')) return foreign('a country code other than +86', '+86 以外的国家代码');
    digits = digits.slice(3);
  } else if (digits.startsWith('00')) {
    if (!digits.startsWith('0086')) return foreign('an international prefix other than 0086', '0086 以外的国际前缀');
    digits = digits.slice(4);
  } else if (digits.length === 13 && digits.startsWith('86')) {
    // 86 + 11 digits. A 13-digit IoT number starts with 14, so this cannot swallow one.
    digits = digits.slice(2);
  }
  if (digits === '') return no('phone has a country code but no number', 'phone 只有国家代码，没有号码');
  return checkShape(digits);
}

function foreign(what: string, whatZh: string): Normalised {
  return no(
    `phone has ${what}: only mainland China mobile numbers are supported`,
    `phone 带有 ${whatZh}：仅支持中国大陆手机号`,
  );
}

/** Length and leading digits of national digits; 13 digits pass only for 14x, the IoT blocks. */
function checkShape(digits: string): Normalised {
  const n = digits.length;
  if (n < 11) {
    return no(
      `phone is too short: ${n} digits, a mainland mobile number has 11`,
      `phone 太短：${n} 位，大陆手机号为 11 位`,
    );
  }
  if (n > 11 && !(n === 13 && digits.startsWith('14'))) return { ok: false, message: tooLong(n) };
  if (digits[0] !== '1') {
    return no(
      `not a mobile number: mainland mobile numbers start with 1, this one starts with ${digits[0]}`,
      `不是手机号：大陆手机号以 1 开头，此号码以 ${digits[0]} 开头`,
    );
  }
  const second = digits.charCodeAt(1) - 48;
  if (second < 3) {
    return no(
      `not a mobile number: the second digit must be 3-9, got 1${digits[1]}`,
      `不是手机号：第二位须为 3-9，实际为 1${digits[1]}`,
    );
  }
  return { ok: true, digits };
}

export function tooLong(n: number): Said {
  return say(
    `phone is too long: ${n} digits, a mainland mobile number has 11`,
    `phone 太长：${n} 位，大陆手机号为 11 位`,
  );
}
