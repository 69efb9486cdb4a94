// operations.yaml: meta-schema errors name file, code and JSON pointer; ${ENV} substitution; hot reload keeps
// the last good config on a bad edit; calls in flight finish on the config they started with.

import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nock from 'nock';
import t from 'tap';
import { parseOperationsConfig } from '../../core/config/operations-loader.js';
import { createTestApp } from '../helpers/create-test-app.js';

nock.disableNetConnect();
const base = readFileSync('test/fixtures/operations.test.yaml', 'utf8');

t.test('meta-schema errors name the file, the code and the JSON pointer', async (t) => {
  const bad = base.replace('price_per_call: 0.002', 'price_per_call: -1');
  t.throws(() => parseOperationsConfig('/x/operations.yaml', bad), {
    message: 'operations.yaml: operation "item" at /operations/3/price_per_call: must be >= 0',
  });
  t.throws(
    () => parseOperationsConfig('/x/operations.yaml', base.replace('cache_ttl: 60', 'cache_ttl: 60\n    colour: red')),
    {
      message:
        'operations.yaml: operation "echo_cached" at /operations/1: must NOT have additional properties (colour)',
    },
  );
  t.throws(
    () => parseOperationsConfig('/x/ops.yaml', base.replace('price_per_call: 0.002', 'price_per_call: 0.0000001')),
    {
      message: 'ops.yaml: operation "item" at /operations/3/price_per_call: amount 1e-7 has more than 6 decimals',
    },
  );
  t.throws(() => parseOperationsConfig('/x/ops.yaml', base.replace('code: echo_free', 'code: echo')), {
    message: 'ops.yaml: operation "echo" at /operations/2/code: duplicate code (first at /operations/0)',
  });
  t.throws(() => parseOperationsConfig('/x/ops.yaml', 'operations: [\n'), {
    message: /^ops.yaml: not valid YAML: Flow sequence/,
  });
});

t.test(
  'an input description is one string or { zh, en }: English for Ajv and OpenAPI, the Chinese beside it',
  async (t) => {
    const MSG = 'msg: { type: string, maxLength: 100, description: any text }';
    const both = base.replace(
      MSG,
      'msg: { type: string, maxLength: 100, description: { zh: 任意文字, en: any text } }',
    );
    const echo = parseOperationsConfig('/x/o.yaml', both).operations[0];
    t.same(echo.input.properties?.msg, {
      type: 'string',
      maxLength: 100,
      description: 'any text',
      'x-description-zh': '任意文字',
    });
    t.same(echo.input.properties?.n, { type: 'number' }, 'a property without a description is left as it is');
    t.same(
      parseOperationsConfig('/x/o.yaml', base).operations[0].input.properties?.msg,
      { type: 'string', maxLength: 100, description: 'any text' },
      'one string serves both languages',
    );
    const zhOnly = base.replace(MSG, 'msg: { type: string, description: { zh: 任意文字 } }');
    t.throws(() => parseOperationsConfig('/x/ops.yaml', zhOnly), {
      message:
        /^ops\.yaml: operation "echo" at \/operations\/0\/input\/properties\/msg\/description: must be string\n.*description: must have required property 'en'/,
    });
    const empty = base.replace(MSG, "msg: { type: string, description: { zh: '', en: any text } }");
    t.throws(() => parseOperationsConfig('/x/ops.yaml', empty), {
      message: /at \/operations\/0\/input\/properties\/msg\/description\/zh: must NOT have fewer than 1 characters/,
    });
    const number = base.replace(MSG, 'msg: { type: string, description: 42 }');
    t.throws(() => parseOperationsConfig('/x/ops.yaml', number), {
      message: /at \/operations\/0\/input\/properties\/msg\/description: must be string/,
    });
  },
);

t.test('${ENV} and ${ENV:-default} are substituted in options', async (t) => {
  const cfg = parseOperationsConfig('/x/o.yaml', base, { TEST_SECRET: 's3cret' });
  t.same(cfg.operations[0].options, { greeting: 'hi', secret: 's3cret' });
  const cfg2 = parseOperationsConfig('/x/o.yaml', base, { TEST_GREETING: 'hello' });
  t.same(cfg2.operations[0].options, { greeting: 'hello', secret: '' });
});

t.test('a broken file at start fails with a message naming code and pointer', async (t) => {
  await t.rejects(createTestApp({ operationsYaml: base.replace('plugin: loop-forever', 'plugin: no-such-plugin') }), {
    message: 'operations.yaml: operation "loop" at /operations/4/plugin: no plugin folder "no-such-plugin"',
  });
});

t.test(
  'hot reload: a good edit goes live, a broken edit keeps the previous config, in-flight calls keep theirs',
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'tollgate-reload-'));
    const file = join(dir, 'operations.yaml');
    writeFileSync(file, base);
    const h = await createTestApp({ operationsFile: file, watch: true });
    t.teardown(() => h.close());
    const u = await h.user('1');
    const key = { 'X-API-Key': u.key };

    // A call in flight (spinning 600 ms) started at price 0.01 ...
    const inFlight = h.client.get('/api/echo?spinMs=600', key);
    await new Promise((r) => setTimeout(r, 150));
    // ... while the price changes to 0.05.
    writeFileSync(
      file,
      base.replace('price_per_call: 0.01\n    cache_ttl: 0', 'price_per_call: 0.05\n    cache_ttl: 0'),
    );
    t.equal(await h.services.registry.reload(), true);
    const old = await inFlight;
    t.equal(old.body.deducted, 0.01, 'the in-flight call finished on the config it started with');
    const now = await h.client.get('/api/echo?msg=new', key);
    t.equal(now.body.deducted, 0.05);

    writeFileSync(
      file,
      base.replace('price_per_call: 0.01\n    cache_ttl: 0', 'price_per_call: "lots"\n    cache_ttl: 0'),
    );
    t.equal(await h.services.registry.reload(), false);
    const still = await h.client.get('/api/echo?msg=still', key);
    t.equal(still.status, 200);
    t.equal(still.body.deducted, 0.05, 'the previous good config keeps serving');
    const logged = h.logs.find((l) => l.message === 'operations reload rejected; keeping the previous config');
    t.match(logged, { level: 'error', reason: /operation "echo" at \/operations\/0\/price_per_call: must be number/ });

    // The file watcher picks up edits without an explicit reload.
    writeFileSync(file, base.replace('code: echo_free', 'code: echo_gratis'));
    for (let i = 0; i < 50 && !h.services.registry.current.get('echo_gratis'); i++)
      await new Promise((r) => setTimeout(r, 100));
    t.ok(h.services.registry.current.get('echo_gratis'), 'the watcher reloaded the edited file');
    t.equal((await h.client.get('/api/echo_free', key)).body.error.code, 'UNKNOWN_OPERATION');
    await h.assertReconciled();
  },
);
