// Strict TypeScript is part of the build: core and tests, plugins without Node types (they run in a bare
// isolate), and the browser console with DOM types. The TypeScript loader (core/bin/load-ts.mjs) strips types
// without checking, so check here.

import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import t from 'tap';

const tsc = resolve('node_modules/typescript/bin/tsc');

for (const project of ['tsconfig.json', 'plugins/tsconfig.json', 'web/tsconfig.json']) {
  t.test(`tsc --noEmit -p ${project}`, async (t) => {
    const r = spawnSync(process.execPath, [tsc, '--noEmit', '-p', project], { encoding: 'utf8' });
    t.equal(r.status, 0, r.stdout + r.stderr);
  });
}
