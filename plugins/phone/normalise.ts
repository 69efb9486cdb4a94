// Turns what people type ("+86 138-0013-8000", "0086 13800138000") into bare national digits, and says
// precisely why when it cannot. The messages are public: callers see them as the INVALID_INPUT message.

export type Normalised = { ok: true; digits: string } | { ok: false; message: string };

const ALLOWED = 'only digits, spaces, dashes and a leading +86 are allowed';

export function normalisePhone(raw: unknown): Normalised {
  if (typeof raw !== 'string') return { ok: false, message: 'phone must be a string' };
  const text = raw.trim();
  if (text === '') return { ok: false, message: 'phone is empty' };
  if (/\p{L}/u.test(text)) return { ok: false, message: `phone contains letters: ${ALLOWED}` };
  const odd = /[^\d\s+-]/u.exec(text);
  if (odd) return { ok: false, message: `phone contains "${odd[0]}": ${ALLOWED}` };
  if (text.lastIndexOf('+') > 0) return { ok: false, message: `phone contains "+" after the start: ${ALLOWED}` };

  let digits = text.replace(/[\s-]/gu, '');
  if (digits.startsWith('+')) {
    if (!digits.startsWith('+86')) return { ok: false, message: foreign('a country code other than +86') };
    digits = digits.slice(3);
  } else if (digits.startsWith('00')) {
    if (!digits.startsWith('0086')) return { ok: false, message: foreign('an international prefix other than 0086') };
    digits = digits.slice(4);
  } else if (digits.length === 13 && digits.startsWith('86')) {
    // 86 + 11 digits. A 13-digit IoT number starts with 14, so this cannot swallow one.
    digits = digits.slice(2);
  }
  if (digits === '') return { ok: false, message: 'phone has a country code but no number' };
  return checkShape(digits);
}

function foreign(what: string): string {
  return `phone has ${what}: only mainland China mobile numbers are supported`;
}

/** Length and leading digits of national digits; 13 digits pass only for 14x, the IoT blocks. */
function checkShape(digits: string): Normalised {
  const n = digits.length;
  if (n < 11) return { ok: false, message: `phone is too short: ${n} digits, a mainland mobile number has 11` };
  if (n > 11 && !(n === 13 && digits.startsWith('14'))) return { ok: false, message: tooLong(n) };
  if (digits[0] !== '1') {
    return {
      ok: false,
      message: `not a mobile number: mainland mobile numbers start with 1, this one starts with ${digits[0]}`,
    };
  }
  const second = digits.charCodeAt(1) - 48;
  if (second < 3) {
    return { ok: false, message: `not a mobile number: the second digit must be 3-9, got 1${digits[1]}` };
  }
  return { ok: true, digits };
}

export function tooLong(n: number): string {
  return `phone is too long: ${n} digits, a mainland mobile number has 11`;
}
