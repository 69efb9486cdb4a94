// Comments and docs cite what the repository holds (a docs/ section, a file), never history the reader cannot
// open: an issue number, notes outside the repository ("research/…"), or a design file that is not in it
// (DESIGN.md). Scans core/, plugins/, web/src (sources and READMEs) and test/ (all but this file, whose probes
// are the forms it forbids).

import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import t from 'tap';

const root = resolve(import.meta.dirname, '../..');
const ROOTS = ['core', 'plugins', 'web/src', 'test'];
const SELF = resolve(import.meta.filename);
const SCANNED = /\.(ts|mts|mjs|js|css|html|md)$/;
const SKIPPED_DIRS = new Set(['node_modules', 'generated', 'dist', 'fixtures', 'artifacts']);

/** What a comment or README may not cite, with why. */
const FORBIDDEN: Array<[RegExp, string]> = [
  [/\bissues? #?\d+/i, 'an issue number'],
  [/\bresearch\//i, 'notes outside the repository'],
  [/\bDESIGN\.md\b/, 'a design file that is not in the repository'],
];

function* files(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory()) {
      if (!SKIPPED_DIRS.has(e.name)) yield* files(join(dir, e.name));
    } else if (SCANNED.test(e.name) && join(dir, e.name) !== SELF) yield join(dir, e.name);
  }
}

/** Each forbidden citation in `text`, as "line: what". */
function historyRefs(text: string): string[] {
  const found: string[] = [];
  text.split('\n').forEach((line, i) => {
    for (const [re, what] of FORBIDDEN) if (re.test(line)) found.push(`${i + 1}: ${what}: ${line.trim()}`);
  });
  return found;
}

t.test('core/, plugins/, web/src and test/ cite no issue numbers, research notes or DESIGN.md', async (t) => {
  const found: string[] = [];
  let scanned = 0;
  for (const top of ROOTS) {
    for (const file of files(join(root, top))) {
      scanned++;
      for (const hit of historyRefs(readFileSync(file, 'utf8'))) found.push(`${relative(root, file)}:${hit}`);
    }
  }
  t.ok(scanned > 600, `scanned ${scanned} files`);
  t.same(found, []);
});

t.test('the check catches each form it forbids and lets ordinary words pass', async (t) => {
  t.same(historyRefs('// fixed in issue 14').length, 1);
  t.same(historyRefs('// see issue #7').length, 1);
  t.same(historyRefs('// Sources: shared/research/kuaid.md').length, 1);
  t.same(historyRefs('// (DESIGN.md section 3)').length, 1);
  t.same(historyRefs('const issue = async () => {};\n// a format only that courier issues; 60-95'), []);
  t.same(historyRefs('// docs/performance.md "Costs cited by the code"'), []);
});
