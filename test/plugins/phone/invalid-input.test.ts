// Every malformed shape is INVALID_INPUT with a message that says why; the messages are public, so exact.
import t from 'tap';
import { plugin } from '../../../plugins/phone/handler.js';
import { lookup, phoneHost } from './run.js';

const ALLOWED = 'only digits, spaces, dashes and a leading +86 are allowed';
const ALLOWED_ZH = '只允许数字、空格、短横线和开头的 +86';

/** Input, the English message, the Chinese one. */
const CASES: Array<[input: string, message: string, zh: string]> = [
  ['', 'phone is empty', 'phone 为空'],
  ['   ', 'phone is empty', 'phone 为空'],
  [
    '1380013800',
    'phone is too short: 10 digits, a mainland mobile number has 11',
    'phone 太短：10 位，大陆手机号为 11 位',
  ],
  ['138', 'phone is too short: 3 digits, a mainland mobile number has 11', 'phone 太短：3 位，大陆手机号为 11 位'],
  ['+86 138', 'phone is too short: 3 digits, a mainland mobile number has 11', 'phone 太短：3 位，大陆手机号为 11 位'],
  [
    '138001380001',
    'phone is too long: 12 digits, a mainland mobile number has 11',
    'phone 太长：12 位，大陆手机号为 11 位',
  ],
  [
    '1380013800012',
    'phone is too long: 13 digits, a mainland mobile number has 11',
    'phone 太长：13 位，大陆手机号为 11 位',
  ],
  [
    '+86138001380001',
    'phone is too long: 12 digits, a mainland mobile number has 11',
    'phone 太长：12 位，大陆手机号为 11 位',
  ],
  // 13 digits pass the shape check only for 14x, and then only in an IoT block
  [
    '1451234567890',
    'phone is too long: 13 digits, a mainland mobile number has 11',
    'phone 太长：13 位，大陆手机号为 11 位',
  ],
  ['13800a38000', `phone contains letters: ${ALLOWED}`, `phone 含有字母：${ALLOWED_ZH}`],
  ['abcdefghijk', `phone contains letters: ${ALLOWED}`, `phone 含有字母：${ALLOWED_ZH}`],
  ['一三八00138000', `phone contains letters: ${ALLOWED}`, `phone 含有字母：${ALLOWED_ZH}`],
  ['138.0013.8000', `phone contains ".": ${ALLOWED}`, `phone 含有“.”：${ALLOWED_ZH}`],
  ['(138)00138000', `phone contains "(": ${ALLOWED}`, `phone 含有“(”：${ALLOWED_ZH}`],
  ['138#0013', `phone contains "#": ${ALLOWED}`, `phone 含有“#”：${ALLOWED_ZH}`],
  ['138+00138000', `phone contains "+" after the start: ${ALLOWED}`, `phone 在开头之后含有“+”：${ALLOWED_ZH}`],
  [
    '+1 415 555 2671',
    'phone has a country code other than +86: only mainland China mobile numbers are supported',
    'phone 带有 +86 以外的国家代码：仅支持中国大陆手机号',
  ],
  [
    '+852 9123 4567',
    'phone has a country code other than +86: only mainland China mobile numbers are supported',
    'phone 带有 +86 以外的国家代码：仅支持中国大陆手机号',
  ],
  [
    '0014155552671',
    'phone has an international prefix other than 0086: only mainland China mobile numbers are supported',
    'phone 带有 0086 以外的国际前缀：仅支持中国大陆手机号',
  ],
  ['+86', 'phone has a country code but no number', 'phone 只有国家代码，没有号码'],
  ['0086', 'phone has a country code but no number', 'phone 只有国家代码，没有号码'],
  [
    '23800138000',
    'not a mobile number: mainland mobile numbers start with 1, this one starts with 2',
    '不是手机号：大陆手机号以 1 开头，此号码以 2 开头',
  ],
  [
    '01012345678',
    'not a mobile number: mainland mobile numbers start with 1, this one starts with 0',
    '不是手机号：大陆手机号以 1 开头，此号码以 0 开头',
  ],
  ['10012345678', 'not a mobile number: the second digit must be 3-9, got 10', '不是手机号：第二位须为 3-9，实际为 10'],
  ['12345678901', 'not a mobile number: the second digit must be 3-9, got 12', '不是手机号：第二位须为 3-9，实际为 12'],
  ['15412345678', 'unknown segment 154: not allocated to any mobile operator', '未知号段 154：未分配给任何移动运营商'],
  ['19412345678', 'unknown segment 194: not allocated to any mobile operator', '未知号段 194：未分配给任何移动运营商'],
  ['16112345678', 'unknown segment 161: not allocated to any mobile operator', '未知号段 161：未分配给任何移动运营商'],
  ['14012345678', 'unknown segment 140: not allocated to any mobile operator', '未知号段 140：未分配给任何移动运营商'],
  ['17912345678', 'unknown segment 179: not allocated to any mobile operator', '未知号段 179：未分配给任何移动运营商'],
  [
    '17450123456',
    'unknown segment 17450: only parts of 174 are allocated to mobile operators',
    '未知号段 17450：174 号段只有部分分配给了移动运营商',
  ],
  [
    '14112345678',
    'unknown segment 14112: only parts of 141 are allocated to mobile operators',
    '未知号段 14112：141 号段只有部分分配给了移动运营商',
  ],
  [
    '14612345678',
    'segment 146 holds 13-digit IoT numbers (中国联通 物联网卡): got 11 digits',
    '号段 146 是 13 位物联网号码（中国联通 物联网卡）：收到的是 11 位',
  ],
  [
    '14401234567',
    'segment 1440 holds 13-digit IoT numbers (中国移动 物联网卡): got 11 digits',
    '号段 1440 是 13 位物联网号码（中国移动 物联网卡）：收到的是 11 位',
  ],
  [
    '14812345678',
    'segment 148 holds 13-digit IoT numbers (中国移动 物联网卡): got 11 digits',
    '号段 148 是 13 位物联网号码（中国移动 物联网卡）：收到的是 11 位',
  ],
];

t.test('malformed inputs', async (t) => {
  const host = phoneHost(t);
  for (const [input, message, zh] of CASES) {
    const expected = { ok: false, code: 'INVALID_INPUT', message, message_zh: zh };
    t.strictSame(await lookup(host, input), expected, JSON.stringify(input));
  }
});

t.test('a non-string phone (schema bypassed) is INVALID_INPUT, not a crash', async (t) => {
  const host = phoneHost(t);
  for (const phone of [13800138000, null, undefined, ['13800138000']]) {
    const out = await plugin.run({ phone } as unknown as { phone: string }, host);
    const expected = {
      ok: false,
      code: 'INVALID_INPUT',
      message: 'phone must be a string',
      message_zh: 'phone 必须是字符串',
    };
    t.strictSame(out, expected, String(phone));
  }
});
