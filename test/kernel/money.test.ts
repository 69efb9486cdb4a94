// toToken is what every answer's `deducted` and `remaining` print: it must give the same number (so the same JSON
// text) as the decimal amount itself, for every amount money can take.
import t from 'tap';
import { MAX_MICRO, toMicro, toToken } from '../../core/kernel/money.js';

/** The decimal text of an integer micro-TOKEN amount, built from digits only (no floating point involved). */
function decimalText(micro: number): string {
  const sign = micro < 0 ? '-' : '';
  const digits = String(Math.abs(micro)).padStart(7, '0');
  return `${sign}${digits.slice(0, -6)}.${digits.slice(-6)}`;
}

t.test('toToken is the double nearest the decimal amount, for edges and a million random amounts', async (t) => {
  const edges = [0, 1, 5, 10, 995, 5000, 9_995_000, 999_999, 1_000_000, 1_000_001, MAX_MICRO, MAX_MICRO - 1];
  edges.push(...edges.map((m) => -m), Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER);
  let seed = 42;
  const next = (): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed;
  };
  const amounts = [...edges];
  for (let i = 0; i < 1_000_000; i++) {
    // Spread over every magnitude up to 2^53, not only small ones.
    const digits = 1 + (next() % 16);
    const m = Math.floor((next() / 2147483648) * 10 ** digits) * (next() % 2 ? 1 : -1);
    amounts.push(Math.max(-Number.MAX_SAFE_INTEGER, Math.min(Number.MAX_SAFE_INTEGER, m)));
  }
  let wrong = 0;
  for (const m of amounts) if (toToken(m) !== Number(decimalText(m))) wrong++;
  t.equal(wrong, 0, `${amounts.length} amounts`);
  t.equal(JSON.stringify(toToken(9_995_000)), '9.995');
  t.equal(JSON.stringify(toToken(5000)), '0.005');
  t.equal(JSON.stringify(toToken(-5000)), '-0.005');
  t.equal(JSON.stringify(toToken(0)), '0');
});

t.test('toToken undoes toMicro', async (t) => {
  for (const text of ['0.005', '9.995', '123456.789012', '1000000000', '0.000001'])
    t.equal(String(toToken(toMicro(text))), text);
});

t.test('a fraction of a micro-TOKEN is cut at 6 decimals', async (t) => {
  t.equal(toToken(0.4), 0);
  t.equal(toToken(1.6), 0.000002);
});
