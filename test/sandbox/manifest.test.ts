// plugin.json validation and handler bundling: errors name the file (or plugin) and the JSON pointer.

import { join } from 'node:path';
import t from 'tap';
import { bundlePlugin } from '../../core/sandbox/bundle.js';
import { loadManifest, validateManifest } from '../../core/sandbox/manifest.js';
import { FIXTURES } from './helpers.js';

const base = {
  name: 'demo',
  version: '1.0.0',
  allow_hosts: ['api.demo.com', '*.cdn.demo.com'],
  timeout_ms: 2000,
  memory_mb: 32,
};
const check = (v: unknown) => () => validateManifest(v, 'plugins/demo/plugin.json', 'demo');

t.test('a valid manifest passes as is', async (t) => {
  const m = {
    ...base,
    description: 'd',
    max_response_bytes: 1000,
    assets: [
      { name: 'a', path: 'data/a.bin' },
      { name: 'b', option: 'b_file', optional: true },
    ],
  };
  t.same(validateManifest(m, 'f', 'demo'), m);
});

t.test('errors name the file and the JSON pointer', async (t) => {
  const cases: Array<[unknown, RegExp]> = [
    [{ ...base, name: 'other' }, /^plugins\/demo\/plugin\.json: \/name is "other" but the folder is "demo"/],
    [{ ...base, timeout_ms: 0 }, /plugin\.json: \/timeout_ms must be >= 1/],
    [{ ...base, timeout_ms: 120001 }, /\/timeout_ms must be <= 120000/],
    [{ ...base, memory_mb: 4 }, /\/memory_mb must be >= 8/],
    [{ ...base, memory_mb: 2048 }, /\/memory_mb must be <= 1024/],
    [{ ...base, allow_hosts: ['ok.com', 5] }, /\/allow_hosts\/1 must be string/],
    [{ ...base, allow_hosts: ['http://x.com/'] }, /\/allow_hosts\/0 must match pattern/],
    [{ ...base, allowed_hosts: [] }, /: \/ has unknown property "allowed_hosts"/],
    [
      { ...base, assets: [{ name: 'x', path: 'a', option: 'b' }] },
      /\/assets\/0 needs exactly one of "path" or "option"/,
    ],
    [{ ...base, assets: [{ name: 'x' }] }, /\/assets\/0 needs exactly one of "path" or "option"/],
    [
      { ...base, assets: [{ name: 'x', path: '../../etc/passwd' }] },
      /\/assets\/0\/path must be a relative path inside the plugin folder/,
    ],
    [
      {
        ...base,
        assets: [
          { name: 'x', path: 'a' },
          { name: 'x', option: 'o' },
        ],
      },
      /\/assets\/1\/name repeats asset "x"/,
    ],
    [{ version: '1' }, /must have required property/],
    [[], /: \/ must be object/],
  ];
  for (const [value, re] of cases) t.throws(check(value), re, re.source);
  t.throws(check({ ...base, timeout_ms: 0 }), {
    name: 'ManifestError',
    pointer: '/timeout_ms',
    file: 'plugins/demo/plugin.json',
  });
});

t.test('loadManifest reads the fixture and checks bundled assets exist', async (t) => {
  const m = await loadManifest(join(FIXTURES, 'echo'));
  t.equal(m.name, 'echo');
  const dir = t.testdir({
    demo: { 'plugin.json': JSON.stringify({ ...base, assets: [{ name: 'a', path: 'missing.bin' }] }) },
    bad: { 'plugin.json': '{ not json' },
  });
  await t.rejects(
    loadManifest(join(dir, 'demo')),
    /demo[/\\]plugin\.json: \/assets\/0\/path names missing\.bin, which is not a file/,
  );
  await t.rejects(loadManifest(join(dir, 'bad')), /bad[/\\]plugin\.json: \/ cannot be read as JSON/);
});

t.test('bundle: readable iife with the plugin on the global; failures name the plugin', async (t) => {
  const { code, inputs } = await bundlePlugin('throws', join(FIXTURES, 'throws'));
  t.match(code, /var __plugin = \(\(\) => \{/);
  t.match(code, /thing\.deep\.value/, 'unminified');
  t.ok(
    inputs.some((i) => i.endsWith('_lib/normal.ts')),
    'local imports are bundled',
  );
  const dir = t.testdir({
    nodey: {
      'handler.ts':
        "import { readFileSync } from 'node:fs';\nexport const plugin = { run: async () => ({ ok: true, data: readFileSync('/etc/passwd', 'utf8') }) };\n",
    },
    syntax: { 'handler.ts': 'export const plugin = {{{' },
    missing: {},
  });
  await t.rejects(
    bundlePlugin('nodey', join(dir, 'nodey')),
    /plugin nodey: bundling handler\.ts failed: .*Could not resolve "node:fs"/,
  );
  await t.rejects(bundlePlugin('syntax', join(dir, 'syntax')), {
    name: 'BundleError',
    plugin: 'syntax',
    message: /Expected identifier/,
  });
  await t.rejects(bundlePlugin('missing', join(dir, 'missing')), /plugin missing: bundling handler\.ts failed/);
});
