// Phone lookups per second inside an isolated-vm isolate (how production runs the plugin), with the same
// loop in plain Node as a baseline in the same run. Only the lookup is timed: the bundle, the asset copy
// and the table parse happen once per isolate in production too, so they are set up before the clock.
//   node --no-node-snapshot --import ./core/bin/load-ts.mjs bench/phone-lookup.ts

import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import ivm from 'isolated-vm';
import { buildPhoneAsset } from '../core/build/phone-asset.js';
import { parseGeoTable } from '../plugins/phone/geo-table.js';
import { lookupPhone } from '../plugins/phone/lookup.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const LOOKUPS = 200_000;
const ROUNDS = 5;

/**
 * Deterministic, varied inputs (mostly plain numbers across all segments, some written with +86 and
 * separators, some too short) and the timed loop, as plain JS source evaluated in both the isolate and
 * Node: a compiled TS function may carry helpers that do not exist in the isolate, and one source
 * keeps the two loops identical. The loop returns a count of successful lookups so nothing is optimised away.
 */
const LOOP_SOURCE = `
  function makeNumbers(count) {
    const prefixes = ['130', '133', '135', '138', '139', '145', '147', '150', '153', '158', '166', '170', '171',
      '173', '176', '177', '178', '180', '182', '186', '189', '190', '192', '195', '199', '1349', '17400'];
    let seed = 12345;
    const next = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff);
    const out = [];
    for (let i = 0; i < count; i++) {
      let n = prefixes[next() % prefixes.length];
      while (n.length < 11) n += String(next() % 10);
      const r = next() % 20;
      out.push(r === 0 ? '+86 ' + n.slice(0, 3) + '-' + n.slice(3, 7) + '-' + n.slice(7) : r === 1 ? n.slice(0, 10) : n);
    }
    return out;
  }
  function runLoop(lookup, numbers) {
    let ok = 0;
    for (let i = 0; i < numbers.length; i++) if (lookup(numbers[i]).ok) ok++;
    return ok;
  }`;

interface LoopFns {
  makeNumbers(count: number): string[];
  runLoop(lookup: (phone: string) => { ok: boolean }, numbers: string[]): number;
}

async function bundleLookup(): Promise<string> {
  const out = await build({
    stdin: {
      contents: `import { lookupPhone } from './lookup.js'; import { parseGeoTable } from './geo-table.js';
        globalThis.phone = { lookupPhone, parseGeoTable };`,
      resolveDir: resolve(ROOT, 'plugins/phone'),
      loader: 'ts',
    },
    bundle: true,
    format: 'iife',
    platform: 'neutral',
    write: false,
  });
  return out.outputFiles[0]!.text;
}

function perSecond(count: number, ns: bigint): number {
  return Math.round(count / (Number(ns) / 1e9));
}

/** An isolate with the phone lookup bundled in and its tables parsed (`phone`, `tables`), as the plugin has them
 *  after its first call. The caller disposes the isolate. */
export async function phoneLookupIsolate(): Promise<{
  isolate: ivm.Isolate;
  context: ivm.Context;
  asset: ArrayBuffer;
}> {
  const assetPath = buildPhoneAsset({ quiet: true }).path;
  const file = readFileSync(assetPath);
  const asset = file.buffer.slice(file.byteOffset, file.byteOffset + file.byteLength) as ArrayBuffer;
  const isolate = new ivm.Isolate({ memoryLimit: 64 });
  const context = await isolate.createContext();
  await context.evalClosure('globalThis.asset = $0', [new ivm.ExternalCopy(asset).copyInto()]);
  await context.eval(await bundleLookup());
  await context.eval('globalThis.tables = { geo: phone.parseGeoTable(asset), dat: null };');
  return { isolate, context, asset };
}

/** One phone lookup's outcome as the floors read it. */
export interface LookupOutcome {
  ok: boolean;
  data?: unknown;
  message?: string;
}

/**
 * The floors' way to look numbers up (floor-server.ts, pg-floor-server.ts): the numbers of a turn in one synchronous
 * call into an isolate with the plugin's lookup code and tables. The caller disposes the isolate.
 */
export async function phoneLookupMany(): Promise<{
  isolate: ivm.Isolate;
  lookupMany: ivm.Reference<(phones: string[]) => LookupOutcome[]>;
}> {
  const { isolate, context } = await phoneLookupIsolate();
  await context.eval('globalThis.lookupMany = (phones) => phones.map((p) => phone.lookupPhone(p, tables));');
  const lookupMany = (await context.global.get('lookupMany', { reference: true })) as ivm.Reference<
    (phones: string[]) => LookupOutcome[]
  >;
  return { isolate, lookupMany };
}

export async function benchPhoneLookup(): Promise<{ lookupsPerSecond: number; baselinePerSecond: number }> {
  const { isolate, context, asset } = await phoneLookupIsolate();
  try {
    await context.eval(`
      ${LOOP_SOURCE}
      const numbers = makeNumbers(${LOOKUPS});
      globalThis.round = () => runLoop((p) => phone.lookupPhone(p, tables), numbers);
      round();`); // warm-up: JIT the lookup before timing
    const round = (await context.global.get('round', { reference: true })) as ivm.Reference<() => number>;

    const { makeNumbers, runLoop } = new Function(`${LOOP_SOURCE}; return { makeNumbers, runLoop };`)() as LoopFns;
    const tables = { geo: parseGeoTable(asset), dat: null };
    const numbers = makeNumbers(LOOKUPS);
    const node = (p: string) => lookupPhone(p, tables);
    runLoop(node, numbers);

    let bestIsolate = 0n;
    let bestNode = 0n;
    let checksum = -1;
    for (let r = 0; r < ROUNDS; r++) {
      let t0 = process.hrtime.bigint();
      const inIsolate = round.applySync(undefined, []);
      const isolateNs = process.hrtime.bigint() - t0;
      t0 = process.hrtime.bigint();
      const inNode = runLoop(node, numbers);
      const nodeNs = process.hrtime.bigint() - t0;
      if (inIsolate !== inNode)
        throw new Error(`isolate and Node disagree: ${inIsolate} vs ${inNode} successful lookups`);
      checksum = inNode;
      if (bestIsolate === 0n || isolateNs < bestIsolate) bestIsolate = isolateNs;
      if (bestNode === 0n || nodeNs < bestNode) bestNode = nodeNs;
    }
    if (checksum <= 0) throw new Error('no lookup succeeded');
    return { lookupsPerSecond: perSecond(LOOKUPS, bestIsolate), baselinePerSecond: perSecond(LOOKUPS, bestNode) };
  } finally {
    isolate.dispose();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { lookupsPerSecond, baselinePerSecond } = await benchPhoneLookup();
  const fmt = (n: number): string => n.toLocaleString('en-US');
  console.log(`phone lookup, ${fmt(LOOKUPS)} lookups x ${ROUNDS} rounds (best round):`);
  console.log(`  isolate   ${fmt(lookupsPerSecond)} lookups/s`);
  console.log(`  node      ${fmt(baselinePerSecond)} lookups/s`);
  console.log(`  ratio     ${(lookupsPerSecond / baselinePerSecond).toFixed(2)} (isolate / node)`);
}
