// The error catalogue: every code has one status, and docs/api.md lists every code with its status.

import { readFileSync } from 'node:fs';
import t from 'tap';
import { ERROR_CATALOGUE, ERROR_CODES } from '../../core/http/errors.js';

t.test('docs/api.md lists every error code with its status', async (t) => {
  const readme = readFileSync('docs/api.md', 'utf8');
  for (const code of ERROR_CODES) {
    const row = new RegExp(`\\|\\s*${ERROR_CATALOGUE[code].status}\\s*\\|\\s*\`${code}\`\\s*\\|`);
    t.match(readme, row, `${code} (${ERROR_CATALOGUE[code].status}) is in the error table of docs/api.md`);
  }
});

t.test('every code has a public message and a 4xx/5xx status', async (t) => {
  for (const code of ERROR_CODES) {
    const { status, message } = ERROR_CATALOGUE[code];
    t.ok(status >= 400 && status < 600, `${code} status`);
    t.ok(message.length > 10, `${code} message`);
  }
});

t.test('every code of the catalogue is produced and asserted by some test', async (t) => {
  const { readdirSync, statSync } = await import('node:fs');
  const { join } = await import('node:path');
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (p.endsWith('.test.ts') && !p.endsWith('errors.test.ts')) files.push(p);
    }
  };
  walk('test');
  const corpus = files.map((f) => readFileSync(f, 'utf8')).join('\n');
  for (const code of ERROR_CODES) {
    t.match(corpus, new RegExp(`['"\`]${code}['"\`]`), `${code} is asserted in a test`);
  }
});
