// Every malformed shape is INVALID_INPUT with a message that says why; the messages are public, so exact.
import t from 'tap';
import { plugin } from '../../../plugins/phone/handler.js';
import { lookup, phoneHost } from './run.js';

const ALLOWED = 'only digits, spaces, dashes and a leading +86 are allowed';

const CASES: Array<[input: string, message: string]> = [
  ['', 'phone is empty'],
  ['   ', 'phone is empty'],
  ['1380013800', 'phone is too short: 10 digits, a mainland mobile number has 11'],
  ['138', 'phone is too short: 3 digits, a mainland mobile number has 11'],
  ['+86 138', 'phone is too short: 3 digits, a mainland mobile number has 11'],
  ['138001380001', 'phone is too long: 12 digits, a mainland mobile number has 11'],
  ['1380013800012', 'phone is too long: 13 digits, a mainland mobile number has 11'],
  ['+86138001380001', 'phone is too long: 12 digits, a mainland mobile number has 11'],
  // 13 digits pass the shape check only for 14x, and then only in an IoT block
  ['1451234567890', 'phone is too long: 13 digits, a mainland mobile number has 11'],
  ['13800a38000', `phone contains letters: ${ALLOWED}`],
  ['abcdefghijk', `phone contains letters: ${ALLOWED}`],
  ['一三八00138000', `phone contains letters: ${ALLOWED}`],
  ['138.0013.8000', `phone contains ".": ${ALLOWED}`],
  ['(138)00138000', `phone contains "(": ${ALLOWED}`],
  ['138#0013', `phone contains "#": ${ALLOWED}`],
  ['138+00138000', `phone contains "+" after the start: ${ALLOWED}`],
  ['+1 415 555 2671', 'phone has a country code other than +86: only mainland China mobile numbers are supported'],
  ['+852 9123 4567', 'phone has a country code other than +86: only mainland China mobile numbers are supported'],
  [
    '0014155552671',
    'phone has an international prefix other than 0086: only mainland China mobile numbers are supported',
  ],
  ['+86', 'phone has a country code but no number'],
  ['0086', 'phone has a country code but no number'],
  ['23800138000', 'not a mobile number: mainland mobile numbers start with 1, this one starts with 2'],
  ['01012345678', 'not a mobile number: mainland mobile numbers start with 1, this one starts with 0'],
  ['10012345678', 'not a mobile number: the second digit must be 3-9, got 10'],
  ['12345678901', 'not a mobile number: the second digit must be 3-9, got 12'],
  ['15412345678', 'unknown segment 154: not allocated to any mobile operator'],
  ['19412345678', 'unknown segment 194: not allocated to any mobile operator'],
  ['16112345678', 'unknown segment 161: not allocated to any mobile operator'],
  ['14012345678', 'unknown segment 140: not allocated to any mobile operator'],
  ['17912345678', 'unknown segment 179: not allocated to any mobile operator'],
  ['17450123456', 'unknown segment 17450: only parts of 174 are allocated to mobile operators'],
  ['14112345678', 'unknown segment 14112: only parts of 141 are allocated to mobile operators'],
  ['14612345678', 'segment 146 holds 13-digit IoT numbers (中国联通 物联网卡): got 11 digits'],
  ['14401234567', 'segment 1440 holds 13-digit IoT numbers (中国移动 物联网卡): got 11 digits'],
  ['14812345678', 'segment 148 holds 13-digit IoT numbers (中国移动 物联网卡): got 11 digits'],
];

t.test('malformed inputs', async (t) => {
  const host = phoneHost(t);
  for (const [input, message] of CASES) {
    t.strictSame(await lookup(host, input), { ok: false, code: 'INVALID_INPUT', message }, JSON.stringify(input));
  }
});

t.test('a non-string phone (schema bypassed) is INVALID_INPUT, not a crash', async (t) => {
  const host = phoneHost(t);
  for (const phone of [13800138000, null, undefined, ['13800138000']]) {
    const out = await plugin.run({ phone } as unknown as { phone: string }, host);
    t.strictSame(out, { ok: false, code: 'INVALID_INPUT', message: 'phone must be a string' }, String(phone));
  }
});
