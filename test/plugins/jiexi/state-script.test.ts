import t from 'tap';
import { extractStateScript, parseStateScript, undefinedToNull } from '../../../plugins/_lib/state-script.js';

t.test('bare undefined becomes null, the string "undefined" stays a string', async (t) => {
  t.equal(
    undefinedToNull('{"a":undefined,"b":"undefined","c":"say \\"undefined\\" twice","d":[undefined],"undefinedX":1}'),
    '{"a":null,"b":"undefined","c":"say \\"undefined\\" twice","d":[null],"undefinedX":1}',
  );
});

t.test('extracts up to </script>, trims a trailing semicolon, tolerates spacing', async (t) => {
  t.equal(extractStateScript('<script>window.INIT_STATE = {"a":1};</script>', 'INIT_STATE'), '{"a":1}');
  t.equal(extractStateScript('<script>window.__INITIAL_STATE__={"a":1}</script>', '__INITIAL_STATE__'), '{"a":1}');
  t.equal(extractStateScript('<script>window.OTHER = {}</script>', 'INIT_STATE'), null);
  t.equal(extractStateScript('<script>window.INIT_STATE = </script>', 'INIT_STATE'), null);
});

t.test('parseStateScript reports missing vs invalid', async (t) => {
  t.same(parseStateScript('<script>window.X = {"a":undefined}</script>', 'X'), { ok: true, value: { a: null } });
  t.match(parseStateScript('<html></html>', 'X'), { ok: false, reason: 'missing' });
  t.match(parseStateScript('<script>window.X = {a: 1}</script>', 'X'), { ok: false, reason: 'invalid' });
});
