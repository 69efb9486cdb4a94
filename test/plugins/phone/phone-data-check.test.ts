// `tollgate phone-data check <file>` on phone.dat files built here: what it prints for a good file, how it
// reports a broken or unsorted one, and that the built-in comparison counts exactly.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { UsageError } from '../../../core/cli/args.js';
import { phoneDataCheck } from '../../../core/cli/phone-data.js';
import { sameCity } from '../../../core/cli/phone-data-report.js';
import { parseCommandLine as parseArgs } from '../../../core/cli/specs.js';
import { buildPhoneDat, type PhoneDatEntry, writePhoneDat } from './phone-dat-builder.js';
import './run.js'; // builds geo.bin when missing, so the comparison below has the built-in table

const ENTRIES: PhoneDatEntry[] = [
  // built-in: 北京/北京 at precision city -> province and city compared, both the same
  { prefix: 1380064, province: '北京', city: '北京', zip: '100000', areaCode: '010', type: 1 },
  // built-in: 贵州 at precision province -> province compared (same), city not compared
  { prefix: 1331234, province: '贵州', city: '遵义', zip: '563000', areaCode: '0852', type: 3 },
  // built-in: 江苏/无锡 at precision city -> province same, city different
  { prefix: 1340000, province: '江苏', city: '苏州', zip: '215000', areaCode: '0512', type: 1 },
  // built-in: no location (1861 北京 is contradicted under it) -> not compared
  { prefix: 1861234, province: '北京', city: '北京', zip: '100000', areaCode: '010', type: 2 },
  // built-in: no location for an MVNO segment
  { prefix: 1700123, province: '广东', city: '深圳', zip: '518000', areaCode: '0755', type: 4 },
  { prefix: 1700124, province: '广东', city: '深圳', zip: '518000', areaCode: '0755', type: 4 },
];

function run(argv: string[]): { code: number; lines: string[] } {
  const lines: string[] = [];
  const code = phoneDataCheck(parseArgs(argv), (line) => lines.push(line));
  return { code, lines };
}

t.test('a good file: version, counts, coverage per segment, agreement, how to enable it', async (t) => {
  const path = writePhoneDat(ENTRIES);
  const { code, lines } = run(['phone-data', 'check', path]);
  t.equal(code, 0);
  t.match(lines[0], new RegExp(`^file      ${path.replace(/[.\\]/g, '\\$&')} \\(\\d+ bytes\\)$`));
  t.strictSame(lines.slice(1), [
    'version   2502',
    'records   6 prefixes (7-digit), 4 distinct places, 6 prefixes with a province',
    'coverage per segment (7-digit prefixes of 10,000):',
    '  133      1    0.0%',
    '  134      1    0.0%',
    '  138      1    0.0%',
    '  170      2    0.0%',
    '  186      1    0.0%',
    'agreement with the built-in data where both answer:',
    '  province  3 of 3 (100.00%)',
    '  city      1 of 2 (50.00%)',
    'OK: the phone plugin can use this file. To enable it, set the operation option phone_dat to its path;',
    'the shipped operations.yaml reads it from the environment (options: { phone_dat: "${PHONE_DAT:-}" }), so:',
    `  PHONE_DAT=${path} npx tollgate serve`,
    'It answers first for the prefixes it holds; other numbers keep the built-in answer. Where the file comes',
    'from, its licence and keeping it current are the operator\'s responsibility (docs/api.md, "Phone").',
  ]);
});

t.test('a full segment reads 100%', async (t) => {
  const entries: PhoneDatEntry[] = [];
  for (let p = 1990000; p <= 1999999; p++)
    entries.push({ prefix: p, province: '海南', city: '海口', zip: '570000', areaCode: '0898', type: 3 });
  const { code, lines } = run(['phone-data', 'check', writePhoneDat(entries)]);
  t.equal(code, 0);
  t.ok(lines.includes('  199  10000  100.0%'), lines.join('\n'));
  t.ok(lines.includes('records   10000 prefixes (7-digit), 1 distinct places, 10000 prefixes with a province'));
});

t.test('an unsorted index, an unknown card type and a bad offset are problems: exit 1', async (t) => {
  const bytes = buildPhoneDat(ENTRIES);
  const indexAt = bytes.readUInt32LE(4);
  // Sorted: 1331234, 1340000, 1380064, 1700123, ... Swap the first two, give the third card type 9, point
  // the fourth past the records.
  const first = Buffer.from(bytes.subarray(indexAt, indexAt + 9));
  bytes.copy(bytes, indexAt, indexAt + 9, indexAt + 18);
  first.copy(bytes, indexAt + 9);
  bytes.writeUInt8(9, indexAt + 2 * 9 + 8);
  bytes.writeUInt32LE(indexAt + 5, indexAt + 3 * 9 + 4);
  const path = join(mkdtempSync(join(tmpdir(), 'tollgate-phone-dat-')), 'bad.dat');
  writeFileSync(path, bytes);
  const { code, lines } = run(['phone-data', 'check', path]);
  t.equal(code, 1);
  t.strictSame(
    lines.filter((l) => l.startsWith('problem') || l.startsWith('NOT')),
    [
      'problem   entry 1: prefix 1331234 is not after 1340000; the index must be sorted',
      'problem   entry 2 (1380064): card type 9 is not one of 1-8',
      `problem   entry 3 (1700123): record offset ${indexAt + 5} is outside the record area`,
      'NOT USABLE: the phone plugin would answer wrongly or not at all from this file; fix or replace it.',
    ],
  );
  t.notOk(lines.some((l) => l.startsWith('OK')));
});

t.test('a file that is not a phone.dat, a missing file, no file argument', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-phone-dat-'));
  const junk = join(dir, 'junk.dat');
  writeFileSync(junk, Buffer.from([1, 2, 3, 4, 200, 0, 0, 0, 9]));
  t.strictSame(run(['phone-data', 'check', junk]), {
    code: 1,
    lines: [`${junk}: not a usable phone.dat: phone.dat index offset 200 is outside the file`],
  });
  t.throws(
    () => run(['phone-data', 'check', join(dir, 'nope.dat')]),
    new UsageError(`cannot read ${join(dir, 'nope.dat')}: no such file`),
  );
  t.throws(() => run(['phone-data', 'check']), new UsageError('missing file: phone-data check <path to phone.dat>'));
});

t.test('city names match up to a prefecture suffix', async (t) => {
  t.ok(sameCity('黔南', '黔南布依族苗族自治州'));
  t.ok(sameCity('哈密地区', '哈密'));
  t.ok(sameCity('深圳', '深圳'));
  t.notOk(sameCity('深圳', '广州'));
  t.notOk(sameCity('海', '海口'), 'a single character is not a name');
});

t.test('as an operator runs it: npx tollgate phone-data check <file>', async (t) => {
  const path = writePhoneDat(ENTRIES);
  const ok = spawnSync(
    process.execPath,
    ['--no-node-snapshot', '--import', './core/bin/load-ts.mjs', 'core/main.ts', 'phone-data', 'check', path],
    {
      encoding: 'utf8',
    },
  );
  t.equal(ok.status, 0, ok.stderr);
  t.match(ok.stdout, /^version {3}2502$/m);
  t.match(ok.stdout, new RegExp(`^  PHONE_DAT=${path.replace(/[.\\]/g, '\\$&')} npx tollgate serve$`, 'm'));
  const missing = spawnSync(
    process.execPath,
    ['--no-node-snapshot', '--import', './core/bin/load-ts.mjs', 'core/main.ts', 'phone-data', 'check'],
    {
      encoding: 'utf8',
    },
  );
  t.equal(missing.status, 2);
  t.match(missing.stderr, /missing file: phone-data check <path to phone\.dat>\nusage: tollgate <command>/);
  t.match(missing.stderr, /phone-data check <file>/);
});
