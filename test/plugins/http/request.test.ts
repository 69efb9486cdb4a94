// plugins/http's request building and helper functions, run directly in Node (the gateway tests run them in the
// isolate): typed JSON values, omitted optional entries, encoding, signing helpers, base64 without Buffer.
import { createHash, createHmac } from 'node:crypto';
import t from 'tap';
import { compileSpec, type UpstreamSpec } from '../../../plugins/http/compile.js';
import { base64Decode, base64Encode, functionsFor, sortedQuery } from '../../../plugins/http/functions.js';
import { buildRequest } from '../../../plugins/http/request.js';
import { createDirectHost } from '../../helpers/direct-host.js';

const host = createDirectHost({ plugin: 'http', now: Date.UTC(2026, 10, 27, 1, 2, 3) });
t.teardown(() => host.dispose());
const spec = (request: Partial<UpstreamSpec['request']>, env: Record<string, string> = {}): UpstreamSpec => ({
  key: 'k',
  id: 'u',
  request: { method: 'POST', url: 'https://api.example.com/v1', ...request },
  success: null,
  result: '{}',
  errors: [],
  env,
});
// async: a request the direct pass builds comes back at once (and its RequestError is thrown, not rejected).
const build = async (request: Partial<UpstreamSpec['request']>, input: unknown, env?: Record<string, string>) =>
  buildRequest(compileSpec(spec(request, env)), input, () => functionsFor(host));

t.test('plain templates are built at once, without the helper bindings; JSONata ones through them', async (t) => {
  let made = 0;
  const functions = () => {
    made++;
    return functionsFor(host);
  };
  const plain = buildRequest(
    compileSpec(spec({ method: 'GET', query: { q: '{{ input.q }}' }, headers: { 'X-A': 'a-{{ input.a }}' } })),
    { q: 'x y', a: 1 },
    functions,
  );
  t.notOk(plain instanceof Promise);
  t.same(plain, {
    url: 'https://api.example.com/v1?q=x%20y',
    method: 'GET',
    headers: { 'x-a': 'a-1' },
    body: undefined,
  });
  t.equal(made, 0);
  const signed = buildRequest(compileSpec(spec({ query: { s: '{{ $md5(input.q) }}' } })), { q: 'abc' }, functions);
  t.ok(signed instanceof Promise);
  t.equal((await signed).url, `https://api.example.com/v1?s=${createHash('md5').update('abc').digest('hex')}`);
  t.equal(made, 1);
  // An input the direct form leaves to JSONata (an array, which JSONata flattens): the same request as before.
  const listed = await buildRequest(compileSpec(spec({ query: { q: '{{ input.q }}' } })), { q: ['a', 'b'] }, functions);
  t.equal(listed.url, 'https://api.example.com/v1?q=%5B%22a%22%2C%22b%22%5D');
  t.equal(made, 2);
});

t.test('JSON body: a lone {{ }} keeps its type; literals and secrets are filled in', async (t) => {
  const r = await build(
    {
      json: {
        n: '{{ input.n }}',
        list: '{{ input.tags }}',
        s: 'id-{{ input.n }}',
        key: '${K}',
        flag: true,
        none: '{{ input.missing }}',
      },
    },
    { n: 5, tags: ['a', 'b'] },
    { K: 'secret' },
  );
  t.same(JSON.parse(r.body!), { n: 5, list: ['a', 'b'], s: 'id-5', key: 'secret', flag: true });
  t.equal(r.headers['content-type'], 'application/json');
});

t.test('query and form: values encoded, undefined entries left out, order kept', async (t) => {
  const r = await build(
    {
      method: 'GET',
      url: 'https://api.example.com/v1/{{ input.path }}?fixed=1',
      query: { q: '{{ input.q }}', opt: '{{ input.opt }}' },
    },
    { q: 'a b&c=d', path: '../x y' },
  );
  t.equal(r.url, 'https://api.example.com/v1/..%2Fx%20y?fixed=1&q=a%20b%26c%3Dd');
  const f = await build({ form: { a: '{{ input.a }}', b: 'x y' } }, { a: '中' });
  t.equal(f.body, 'a=%E4%B8%AD&b=x%20y');
  t.equal(f.headers['content-type'], 'application/x-www-form-urlencoded');
});

t.test('headers: names lower-cased, line breaks refused', async (t) => {
  const r = await build({ headers: { 'X-Sign': '{{ $md5(input.a) }}' } }, { a: 'abc' });
  t.equal(r.headers['x-sign'], createHash('md5').update('abc').digest('hex'));
  await t.rejects(build({ headers: { 'X-A': '{{ input.a }}' } }, { a: 'x\ny' }), /line break/);
});

t.test('let values chain; helpers for signing', async (t) => {
  const r = await build(
    {
      let: {
        ts: '$string($nowMillis())',
        canonical: '$sortedQuery({"b": input.b, "a": input.a, "ts": $ts})',
        sig: '$hmac("sha256", $env.SECRET, $canonical)',
      },
      query: {
        sig: '{{ $sig }}',
        ts: '{{ $ts }}',
        day: '{{ $fromMillis($nowMillis(), "[Y0001][M01][D01]", "+0800") }}',
      },
      method: 'GET',
    },
    { a: 'x y', b: 2 },
    { SECRET: 's3' },
  );
  const ts = String(Date.UTC(2026, 10, 27, 1, 2, 3));
  const sig = createHmac('sha256', 's3').update(`a=x%20y&b=2&ts=${ts}`).digest('hex');
  t.equal(r.url, `https://api.example.com/v1?sig=${sig}&ts=${ts}&day=20261127`);
});

t.test('base64 of UTF-8 both ways, hex, sorted query', async (t) => {
  for (const s of ['', 'a', 'ab', 'abc', '手机号 ✓']) {
    t.equal(base64Encode(s), Buffer.from(s).toString('base64'));
    t.equal(base64Decode(base64Encode(s)), s);
  }
  const fns = functionsFor(host) as Record<string, (...a: unknown[]) => unknown>;
  t.equal(fns.hex('é'), 'c3a9');
  t.equal(fns.sha256('x', 'base64'), createHash('sha256').update('x').digest('base64'));
  t.equal(sortedQuery({ z: 1, a: 'b c', n: null, u: undefined }), 'a=b%20c&z=1');
});
