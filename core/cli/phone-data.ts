// `tollgate phone-data check <file>`: loads a phone.dat the way the phone plugin will, and tells the operator
// what it holds (version, prefixes, coverage per segment), what is wrong with it, how often it agrees with
// the built-in data, and how to switch it on. Exit 0 when the plugin can use the file, 1 when it cannot.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type GeoTable, parseGeoTable } from '../../plugins/phone/geo-table.js';
import { type PhoneDat, parsePhoneDat } from '../../plugins/phone/phone-dat.js';
import { DEFAULT_PHONE_ASSET_DIR } from '../build/phone-asset.js';
import { type ParsedArgs, UsageError } from './args.js';
import type { Print } from './commands.js';
import { analysePhoneDat, type PhoneDatReport } from './phone-data-report.js';

/** A segment is 10,000 7-digit prefixes (1xx0000-1xx9999). */
const SEGMENT_PREFIXES = 10_000;

function arrayBufferOf(bytes: Buffer): ArrayBuffer {
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

/** The built-in table, when npm install built it; the check still runs without it. */
function builtInTable(assetDir: string): GeoTable | null {
  const path = join(assetDir, 'geo.bin');
  if (!existsSync(path)) return null;
  try {
    return parseGeoTable(arrayBufferOf(readFileSync(path)));
  } catch {
    return null;
  }
}

export function phoneDataCheck(args: ParsedArgs, print: Print, assetDir = DEFAULT_PHONE_ASSET_DIR): number {
  const file = args.words[2];
  if (!file) throw new UsageError('missing file: phone-data check <path to phone.dat>');
  const path = resolve(file);
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    const code = (err as { code?: string }).code;
    throw new UsageError(`cannot read ${path}: ${code === 'ENOENT' ? 'no such file' : (code ?? 'unreadable')}`);
  }
  let dat: PhoneDat;
  try {
    dat = parsePhoneDat(arrayBufferOf(bytes));
  } catch (err) {
    print(`${path}: not a usable phone.dat: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  }
  const report = analysePhoneDat(dat, builtInTable(assetDir));
  printReport(path, bytes.length, report, print);
  return report.problemCount === 0 && report.prefixes > 0 ? 0 : 1;
}

function percent(part: number, whole: number, digits = 1): string {
  return whole === 0 ? '-' : `${((100 * part) / whole).toFixed(digits)}%`;
}

function printReport(path: string, size: number, r: PhoneDatReport, print: Print): void {
  print(`file      ${path} (${size.toLocaleString('en-US')} bytes)`);
  print(`version   ${r.version}`);
  print(
    `records   ${r.prefixes} prefixes (7-digit), ${r.records} distinct places, ${r.located} prefixes with a province`,
  );
  print('coverage per segment (7-digit prefixes of 10,000):');
  for (const { segment, prefixes } of r.segments) {
    print(`  ${segment}  ${String(prefixes).padStart(5)}  ${percent(prefixes, SEGMENT_PREFIXES).padStart(6)}`);
  }
  if (r.agreement) {
    const a = r.agreement;
    print('agreement with the built-in data where both answer:');
    print(`  province  ${a.provinceSame} of ${a.provinceCompared} (${percent(a.provinceSame, a.provinceCompared, 2)})`);
    print(`  city      ${a.citySame} of ${a.cityCompared} (${percent(a.citySame, a.cityCompared, 2)})`);
  } else {
    print('agreement with the built-in data: skipped (geo.bin not built; run npm install)');
  }
  if (r.problemCount > 0 || r.prefixes === 0) {
    for (const p of r.problems) print(`problem   ${p}`);
    if (r.problemCount > r.problems.length) print(`problem   ... and ${r.problemCount - r.problems.length} more`);
    if (r.prefixes === 0) print('problem   the index is empty');
    print('NOT USABLE: the phone plugin would answer wrongly or not at all from this file; fix or replace it.');
    return;
  }
  print('OK: the phone plugin can use this file. To enable it, set the operation option phone_dat to its path;');
  print('the shipped operations.yaml reads it from the environment (options: { phone_dat: "${PHONE_DAT:-}" }), so:');
  print(`  PHONE_DAT=${path} npx tollgate serve`);
  print('It answers first for the prefixes it holds; other numbers keep the built-in answer. Where the file comes');
  print('from, its licence and keeping it current are the operator\'s responsibility (docs/api.md, "Phone").');
}
