// plugins/http's direct evaluator (fast-path.ts) against JSONata itself: for generated expressions of the plain
// subset over generated upstream answers, the compiled Expression gives exactly what JSONata gives, errors included
// (the direct form hands anything beyond its plain cases back to JSONata); and which expressions it takes at all.
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import jsonata from 'jsonata';
import t from 'tap';
import { Expression } from '../../../plugins/http/compile.js';
import { direct, MISS } from '../../../plugins/http/fast-path.js';

const takes = (src: string): boolean => direct(jsonata(src).ast() as Parameters<typeof direct>[0]) !== null;

/** JSONata's answer or its error code, and the same through Expression. */
async function outcome(run: () => unknown): Promise<unknown> {
  try {
    const v = await run();
    return { value: v === undefined ? 'undefined' : JSON.parse(JSON.stringify(v)) };
  } catch (err) {
    return { error: (err as { code?: string }).code ?? String(err) };
  }
}

const NAMES = ['a', 'b', 'code', 'status', 'data', 'x'];
const scalar = fc.oneof(
  fc.constantFrom(0, 1, -1, 200, 404, 2.5, '', '0', '1', 'ok', 'a', true, false, null),
  fc.integer({ min: -3, max: 3 }),
);
const value: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.array(tie('v'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom(...NAMES, '_jsonata_lambda'), tie('v'), { maxKeys: 4 }),
  ),
})).v;

const literal = fc.constantFrom('0', '1', '200', '-1', '2.5', '""', '"1"', '"ok"', '"a"', 'true', 'false', 'null');
const pathExpr = fc.array(fc.constantFrom(...NAMES), { minLength: 1, maxLength: 3 }).map((p) => p.join('.'));
const expr: fc.Arbitrary<string> = fc.letrec<{ e: string }>((tie) => ({
  e: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    pathExpr,
    literal,
    fc
      .tuple(tie('e'), fc.constantFrom('=', '!=', '<', '<=', '>', '>=', 'and', 'or'), tie('e'))
      .map(([l, op, r]) => `(${l}) ${op} (${r})`),
    fc.tuple(pathExpr, fc.array(literal, { maxLength: 3 })).map(([l, list]) => `${l} in [${list.join(', ')}]`),
    fc.tuple(pathExpr, literal).map(([l, r]) => `${l} in ${r}`),
    fc
      .uniqueArray(fc.tuple(fc.constantFrom(...NAMES), tie('e')), { maxLength: 3, selector: ([k]) => k })
      .map((pairs) => `{ ${pairs.map(([k, v]) => `"${k}": ${v}`).join(', ')} }`),
  ),
})).e;

t.test('the plain subset is taken; anything more is left to JSONata', async (t) => {
  for (const src of [
    'input.phone',
    'status = 200 and body.code = 0',
    'status >= 200 and status < 300',
    'body.status = "1" or body.code in ["200", "404"]',
    '{ "phone": input.phone, "city": body.data.city, "n": { "a": body.x } }',
    'status = 200 and (body.a or body.b)',
  ])
    t.ok(takes(src), src);
  for (const src of [
    '$count(body.lives) = 0',
    'body.lives[0].city',
    '[body.list.{ "a": a }]',
    'body.*',
    '$param',
    'a & b',
    '{ "a": 1, "a": 2 }',
    'body.list{ a: b }',
    'x in [1, y]',
    '(a; b)',
  ])
    t.notOk(takes(src), src);
});

t.test('generated expressions and answers: the same value or error as JSONata', async (t) => {
  let answered = 0;
  await fc.assert(
    fc.asyncProperty(expr, value, async (src, data) => {
      let compiled: Expression;
      try {
        compiled = new Expression(src);
      } catch {
        return true; // not JSONata at all (both refuse it at compile time)
      }
      const ctx = { status: 200, input: { phone: '13800000000' }, ...(data as object), body: data };
      const d = direct(jsonata(src).ast() as Parameters<typeof direct>[0]);
      if (d && d(ctx) !== MISS) answered++;
      const mine = await outcome(() => compiled.evaluate(ctx, {}));
      const theirs = await outcome(() => jsonata(src).evaluate(ctx, {}));
      return isDeepStrictEqual(mine, theirs);
    }),
    { numRuns: 3000, seed: 31 },
  );
  t.pass('3000 generated cases agree');
  t.ok(answered > 1000, `${answered} of them answered without JSONata`);
});
