// Writes a small phone.dat in the open format (header, records, 9-byte index sorted by prefix), so tests
// exercise the reader against a file they fully control.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface PhoneDatEntry {
  /** 7-digit prefix, e.g. 1380013 */
  prefix: number;
  province: string;
  city: string;
  zip: string;
  areaCode: string;
  /** 1 移动 2 联通 3 电信 4 电信虚拟 5 联通虚拟 6 移动虚拟 7 广电 8 广电虚拟 */
  type: number;
}

export function buildPhoneDat(entries: PhoneDatEntry[], version = '2502'): Buffer {
  const records: Buffer[] = [];
  const offsets = new Map<string, number>();
  let at = 8;
  // Identical records are stored once, as the published files do.
  for (const e of entries) {
    const text = `${e.province}|${e.city}|${e.zip}|${e.areaCode}`;
    if (offsets.has(text)) continue;
    const bytes = Buffer.from(`${text}\0`, 'utf8');
    offsets.set(text, at);
    records.push(bytes);
    at += bytes.length;
  }
  const sorted = [...entries].sort((a, b) => a.prefix - b.prefix);
  const index = Buffer.alloc(sorted.length * 9);
  sorted.forEach((e, i) => {
    index.writeUInt32LE(e.prefix, i * 9);
    index.writeUInt32LE(offsets.get(`${e.province}|${e.city}|${e.zip}|${e.areaCode}`)!, i * 9 + 4);
    index.writeUInt8(e.type, i * 9 + 8);
  });
  const header = Buffer.alloc(8);
  header.write(version.padEnd(4, '0').slice(0, 4), 0, 'latin1');
  header.writeUInt32LE(at, 4);
  return Buffer.concat([header, ...records, index]);
}

/** Writes the file into a fresh temporary folder and returns its path. */
export function writePhoneDat(entries: PhoneDatEntry[], name = 'phone.dat'): string {
  const path = join(mkdtempSync(join(tmpdir(), 'tollgate-phone-dat-')), name);
  writeFileSync(path, buildPhoneDat(entries));
  return path;
}
