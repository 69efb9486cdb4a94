// Formatting and lint are part of the test run: `biome ci` checks every source file against biome.json (format,
// lint rules, import order) without writing anything (`npm run lint` is the same check). Fix with
// `npx biome check --write .` (`npm run format` only reformats).

import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import t from 'tap';

const root = resolve(import.meta.dirname, '../..');

t.test('biome ci: formatted, lint-clean, imports ordered', async (t) => {
  const r = spawnSync(resolve(root, 'node_modules/.bin/biome'), ['ci', '--error-on-warnings', '.'], {
    cwd: root,
    encoding: 'utf8',
  });
  t.equal(r.status, 0, `${r.stdout}\n${r.stderr}`.slice(-4000));
});

t.test('biome ci fails on a badly formatted file (the check can fail)', async (t) => {
  const r = spawnSync(resolve(root, 'node_modules/.bin/biome'), ['check', '--stdin-file-path=probe.ts'], {
    cwd: root,
    encoding: 'utf8',
    input: 'const  x = {a:1}\n',
  });
  t.not(r.status, 0);
});
