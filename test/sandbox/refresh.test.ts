// Loading and reloading plugin folders: new folders appear, unchanged pools stay (module state survives),
// a changed bundle is rebuilt, a broken edit keeps the last good build, and load errors name the file.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { createMemoryLogger } from '../../core/kernel/logger.js';
import { createSandbox } from '../../core/sandbox/sandbox.js';
import { fakeResolver, req } from './helpers.js';

function writePlugin(root: string, name: string, handler: string, manifest: Record<string, unknown> = {}): void {
  mkdirSync(join(root, name), { recursive: true });
  const m = { name, version: '1.0.0', allow_hosts: [], timeout_ms: 1000, memory_mb: 16, ...manifest };
  writeFileSync(join(root, name, 'plugin.json'), JSON.stringify(m));
  writeFileSync(join(root, name, 'handler.ts'), handler);
}

const counter = (tag: string) =>
  `let n = 0;\nexport const plugin = { async run() { n++; return { ok: true as const, data: { tag: '${tag}', n } }; } };\n`;

t.test('refresh loads new folders, keeps unchanged pools, rebuilds changed bundles', async (t) => {
  const root = t.testdir({ _lib: { 'util.ts': 'export const x = 1;\n' } });
  writePlugin(root, 'alpha', counter('v1'));
  const logger = createMemoryLogger();
  const sb = await createSandbox({ pluginDirs: [root], logger, poolSize: 1, resolver: fakeResolver() });
  t.teardown(() => sb.close());
  t.same(sb.names(), ['alpha']);
  t.match((await sb.run(req('alpha'))).outcome, { ok: true, data: { tag: 'v1', n: 1 } });

  writePlugin(root, 'beta', counter('b'));
  await sb.refresh();
  t.same(sb.names().sort(), ['alpha', 'beta']);
  t.match((await sb.run(req('beta'))).outcome, { ok: true, data: { tag: 'b', n: 1 } });
  t.match(
    (await sb.run(req('alpha'))).outcome,
    { ok: true, data: { tag: 'v1', n: 2 } },
    'unchanged pool kept its module state',
  );

  writePlugin(root, 'alpha', counter('v2'));
  await sb.refresh();
  t.match((await sb.run(req('alpha'))).outcome, { ok: true, data: { tag: 'v2', n: 1 } }, 'changed bundle rebuilt');

  writePlugin(root, 'alpha', 'export const plugin = {{{ broken');
  await sb.refresh();
  t.match(
    (await sb.run(req('alpha'))).outcome,
    { ok: true, data: { tag: 'v2', n: 2 } },
    'a broken edit keeps the last good build',
  );
  t.match(
    logger.lines.find((l) => l.message === 'plugin reload failed; keeping the previous build'),
    { plugin: 'alpha', reason: /plugin alpha: bundling handler\.ts failed/ },
  );
});

t.test('startup fails on a broken plugin, naming it', async (t) => {
  const root = t.testdir();
  writePlugin(root, 'wrong', counter('x'), { name: 'other' });
  await t.rejects(
    createSandbox({ pluginDirs: [root], logger: createMemoryLogger(), resolver: fakeResolver() }),
    /wrong[/\\]plugin\.json: \/name is "other" but the folder is "wrong"/,
  );
  const root2 = t.testdir();
  writePlugin(root2, 'noexport', 'export const notPlugin = 1;\n');
  await t.rejects(
    createSandbox({ pluginDirs: [root2], logger: createMemoryLogger(), resolver: fakeResolver() }),
    /plugin noexport: loading the bundle failed: .*must export `plugin`/,
  );
  const root3 = t.testdir();
  writePlugin(
    root3,
    'throwsatload',
    'throw new Error("boom at load");\nexport const plugin = { async run() { return { ok: true, data: 1 }; } };\n',
  );
  await t.rejects(
    createSandbox({ pluginDirs: [root3], logger: createMemoryLogger(), resolver: fakeResolver() }),
    /plugin throwsatload: loading the bundle failed: boom at load/,
  );
});

t.test('the same plugin name in two plugin dirs is an error', async (t) => {
  const a = t.testdir();
  writePlugin(a, 'dup', counter('a'));
  const b = join(a, '..', 'other-root');
  writePlugin(b, 'dup', counter('b'));
  await t.rejects(
    createSandbox({ pluginDirs: [a, b], logger: createMemoryLogger(), resolver: fakeResolver() }),
    /plugin dup is defined twice/,
  );
});
