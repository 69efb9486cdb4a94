// The console route definitions (core/console/contract/) are imported by the browser for their types: they
// import TypeBox and each other only, never Node or the rest of core.

import { readdirSync, readFileSync } from 'node:fs';
import t from 'tap';

const dir = 'core/console/contract';

t.test('core/console/contract imports only TypeBox and its own files', async (t) => {
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
    const source = readFileSync(`${dir}/${file}`, 'utf8');
    const imports = [...source.matchAll(/\bfrom\s+'([^']+)'/g)].map((m) => m[1]);
    for (const spec of imports)
      t.ok(spec === '@sinclair/typebox' || /^\.\/[\w-]+\.js$/.test(spec), `${file} imports ${spec}`);
  }
});
