// operations.yaml `upstreams:` at load: every expression compiled and a bad one named with its place and column
// (also by `tollgate config check`, with the line); hosts must be literal; a `response` is required; upstreams
// whose ${ENV} secrets are unset make the operation unavailable, naming the variables; only the http plugin runs them.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { configCheck } from '../../core/cli/config-check.js';
import { parseOperationsConfig } from '../../core/config/operations-loader.js';
import { buildRegistry } from '../../core/registry/registry.js';

const op = (upstream: string, extra = '') => `
operations:
  - code: thing
    price_per_call: 0.01
    input: { type: object, properties: { q: { type: string } } }
    response:
      name: { type: string, zh: 名称, en: Name }${extra}
    upstreams:
      - id: main
        request:
          url: ${upstream}
          query: { q: '{{ input.q }}', key: '\${THING_KEY}' }
        result: '{ "name": body.name }'
`;
const parse = (text: string, env: NodeJS.ProcessEnv = { THING_KEY: 'k' }) =>
  parseOperationsConfig('ops.yaml', text, env);

t.test('a good definition: plugin http, the host from the URL, the secret read on the host', async (t) => {
  const cfg = parse(op('https://api.thing.example/v1/find'));
  const o = cfg.operations[0];
  t.equal(o.plugin, 'http');
  t.same(o.availability, { available: true, missing: [] });
  t.same(o.upstreams?.[0].hosts, ['api.thing.example']);
  t.same(o.upstreams?.[0].options.upstream.env, { THING_KEY: 'k' });
  const reg = buildRegistry(cfg, (n) => n === 'http', 1);
  t.ok(reg.get('thing')?.responseCheck);
  t.equal(reg.get('thing')?.responseCheck?.({ name: 1 }), '/name must be string');
});

t.test('an unset secret: the operation is unavailable and says which variable', async (t) => {
  const o = parse(op('https://api.thing.example/v1/find'), {}).operations[0];
  t.same(o.availability, { available: false, missing: [['THING_KEY']] });
});

t.test('a host chosen by a template or a secret is refused', async (t) => {
  for (const url of ['https://{{ input.q }}.example/x', 'https://${THING_HOST}/x', 'ftp://x.example/']) {
    t.throws(() => parse(op(url)), /\/upstreams\/0\/request\/url/, url);
  }
});

t.test('a bad expression is named with its place and column', async (t) => {
  const bad = op('https://api.thing.example/v1/find').replace('body.name }', 'body.name ');
  t.throws(() => parse(bad), /operation "thing" at \/operations\/0\/upstreams\/0\/result: JSONata error at column \d+/);
  const badQuery = op('https://api.thing.example/v1/find').replace('{{ input.q }}', '{{ input.q + }}');
  t.throws(() => parse(badQuery), /at \/operations\/0\/upstreams\/0\/request\/query\/q: JSONata error/);
  const unclosed = op('https://api.thing.example/v1/find').replace('{{ input.q }}', '{{ input.q');
  t.throws(() => parse(unclosed), /request\/query\/q: "\{\{" without a closing "\}\}"/);
  const charge = op('https://api.thing.example/v1/find', '\n    charge_when: name = ');
  t.throws(() => parse(charge), /at \/operations\/0\/charge_when: JSONata error/);
});

t.test('no response block, a duplicate id, a plugin that cannot run upstreams', async (t) => {
  const noResponse = op('https://a.example/').replace(/ {4}response:\n.*\n/, '');
  t.throws(() => parse(noResponse), /an operation with upstreams needs response:/);
  const dup = op('https://a.example/').replace(
    '    upstreams:\n',
    "    upstreams:\n      - { id: main, request: { url: 'https://b.example/' }, result: '{}' }\n",
  );
  t.throws(() => parse(dup), /duplicate upstream id "main"/);
  // Another plugin with upstreams: they can only be its fallback, which needs saying when (fallback.test.ts).
  const withPlugin = op('https://a.example/').replace('    upstreams:', '    plugin: phone\n    upstreams:');
  t.throws(() => parse(withPlugin), /\/operations\/0\/upstreams: with plugin "phone" the upstreams are its fallback/);
  const cfg = parse(op('https://a.example/'));
  t.throws(() => buildRegistry(cfg, (p) => p !== 'http', 1), /no plugin folder "http"/);
});

t.test('tollgate config check names the bad expression with its line', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-upstream-check-'));
  const file = join(dir, 'ops.yaml');
  writeFileSync(file, op('https://api.thing.example/v1/find').replace('body.name }', 'body.name '));
  const lines: string[] = [];
  const code = await configCheck({ words: ['config', 'check', file], flags: {} }, (l) => void lines.push(l), {});
  t.equal(code, 1);
  t.match(
    lines[0],
    /operation "thing" at operations\[0\]\.upstreams\[0\]\.result \(line 13\): JSONata error at column/,
  );
});
