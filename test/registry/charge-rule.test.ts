// charge_when's plain-comparison fast path answers exactly as JSONata does on the same data.
import jsonata from 'jsonata';
import t from 'tap';
import { compileChargeRule } from '../../core/registry/charge-rule.js';

const rules = [
  'precision != "none"',
  "precision = 'city'",
  'a.b = 3',
  'a.b != 3.5',
  'flag = true',
  'gone = null',
  'missing != "x"',
  '$count(list) > 0',
];
const data = [
  { precision: 'none' },
  { precision: 'city' },
  {},
  { a: { b: 3 } },
  { a: { b: 3.5 } },
  { a: 1 },
  { flag: true, gone: null, list: [] },
  { flag: 'true', list: [1] },
];

t.test('fast path and JSONata agree', async (t) => {
  for (const r of rules) {
    const rule = compileChargeRule(r);
    const expr = jsonata(r);
    for (const d of data) {
      const want = (await expr.evaluate(d)) !== false;
      t.equal(await rule(d), want, `${r} on ${JSON.stringify(d)}`);
    }
  }
});

t.test('the simple forms run without a promise', async (t) => {
  t.equal(compileChargeRule('precision != "none"')({ precision: 'city' }), true);
  t.type(compileChargeRule('$count(list) > 0')({ list: [] }), Promise);
});
