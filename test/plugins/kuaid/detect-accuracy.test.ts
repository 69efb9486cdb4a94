// Detection measured on real numbers, not on numbers shaped after our own rules: every sample in
// fixtures/real-numbers.json is a tracking number a public source quotes together with its courier.
// Goal: the right courier first for >= 85%, among the first three for >= 97%.
import t from 'tap';
import { findCourier } from '../../../plugins/kuaid/couriers.js';
import { formatAccuracy, loadSample, measureAccuracy } from './accuracy.js';

t.test('the sample is real, sourced and not padded', async (t) => {
  const sample = loadSample();
  t.ok(sample.length >= 150, `${sample.length} numbers`);
  t.equal(new Set(sample.map((s) => s.no)).size, sample.length, 'no number counted twice');
  for (const s of sample) {
    t.ok(s.source.length > 10 && s.evidence.length > 5, `${s.no} says where it comes from`);
    t.ok(findCourier(s.com)?.code === s.com, `${s.no}: ${s.com} is a courier code of the table`);
    t.notMatch(s.no, /^(\d)\1+$|1234567/, `${s.no} is not a placeholder`);
  }
  t.ok(new Set(sample.map((s) => s.com)).size >= 10, 'many couriers, not one');
});

t.test('top-1 >= 85% and top-3 >= 97% on the real sample', async (t) => {
  const a = measureAccuracy();
  t.comment(formatAccuracy(a));
  t.ok(a.top1 >= 0.85, `top-1 ${(a.top1 * 100).toFixed(1)}% >= 85%`);
  t.ok(a.top3 >= 0.97, `top-3 ${(a.top3 * 100).toFixed(1)}% >= 97%`);
});
