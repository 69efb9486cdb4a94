// The isolate-safe helpers checked against Node's own implementations.
import t from 'tap';
import { base64 } from '../../../plugins/kuaid/base64.js';
import { formBody, formEncode } from '../../../plugins/kuaid/form.js';
import { beijingIso, isoFromEpoch } from '../../../plugins/kuaid/time.js';

const SAMPLES = [
  '',
  'a',
  'ab',
  'abc',
  'abcd',
  '3f2a9c0e1b7d4f6a8c5e2d0b9a7f3e1c',
  '顺丰速运 SF',
  '😀 emoji',
  "!'()*~ +/=&%",
];

t.test('base64 matches Buffer for every length remainder and UTF-8', async (t) => {
  for (const s of SAMPLES) t.equal(base64(s), Buffer.from(s, 'utf8').toString('base64'), JSON.stringify(s));
});

t.test('form encoding matches URLSearchParams', async (t) => {
  for (const s of SAMPLES) t.equal(formEncode(s), new URLSearchParams({ v: s }).toString().slice(2), JSON.stringify(s));
  const fields: Array<[string, string]> = [
    ['param', '{"com":"shunfeng","num":"SF1"}'],
    ['sign', 'A+B/C='],
  ];
  t.equal(formBody(fields), new URLSearchParams(fields).toString());
});

t.test('provider times become ISO 8601 +08:00', async (t) => {
  t.equal(beijingIso('2024-05-02 10:11:12'), '2024-05-02T10:11:12+08:00');
  t.equal(beijingIso('2019/06/25 08:05:37'), '2019-06-25T08:05:37+08:00', 'slash dates');
  t.equal(beijingIso('2019/6/5 8:05:37'), '2019-06-05T08:05:37+08:00', 'unpadded');
  t.equal(beijingIso('2024-05-02 10:11'), '2024-05-02T10:11:00+08:00', 'no seconds');
  t.equal(beijingIso('2024-05-02'), '2024-05-02T00:00:00+08:00', 'date only');
  t.equal(beijingIso('yesterday'), null);
  t.equal(beijingIso('2024-13-02 10:11:12'), null);
  t.equal(beijingIso(20240502), null);
  t.equal(
    isoFromEpoch(Date.UTC(2024, 11, 31, 16, 30, 5)),
    '2025-01-01T00:30:05+08:00',
    'crosses the date line in UTC+8',
  );
});
