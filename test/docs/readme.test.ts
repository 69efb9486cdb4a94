// README is what a newcomer reads first: small (<= 8 KB), the two set-up commands, a first call, and links to
// docs/ for everything else; every relative link in README and docs/ points at a file that exists.

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import t from 'tap';

const root = resolve(import.meta.dirname, '../..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');

t.test('README stays at most 8 KB and keeps the two commands', async (t) => {
  t.ok(statSync(join(root, 'README.md')).size <= 8 * 1024, `README is ${statSync(join(root, 'README.md')).size} bytes`);
  t.match(readme, 'npm install && npm start');
  t.match(readme, 'npm test');
  t.match(readme, /curl "http:\/\/localhost:8080\/api\/phone\?phone=/);
});

t.test('README links every document in docs/', async (t) => {
  for (const name of readdirSync(join(root, 'docs')).filter((n) => n.endsWith('.md'))) {
    t.match(readme, `](docs/${name})`, `README links docs/${name}`);
  }
});

t.test('every relative markdown link points at an existing file', async (t) => {
  const files = [
    'README.md',
    ...readdirSync(join(root, 'docs'))
      .filter((n) => n.endsWith('.md'))
      .map((n) => `docs/${n}`),
  ];
  for (const file of files) {
    const text = readFileSync(join(root, file), 'utf8');
    for (const m of text.matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)) {
      const target = m[1]!;
      if (/^[a-z]+:/.test(target)) continue;
      t.ok(existsSync(join(root, dirname(file), target)), `${file} -> ${target}`);
    }
  }
});
