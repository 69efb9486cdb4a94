// Detection accuracy over the real-number sample (fixtures/real-numbers.json): top-1 and top-3 hit rates,
// overall and per courier, plus the misses. Run it alone to print the figures:
//   node --no-node-snapshot --import=./core/bin/load-ts.mjs test/plugins/kuaid/accuracy.ts
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { detectCouriers, normaliseNumber } from '../../../plugins/kuaid/detect.js';

export interface RealSample {
  no: string;
  com: string;
  source: string;
  evidence: string;
  /** Collected after format-rules.ts was written: an out-of-sample check. */
  held_out?: boolean;
}

export interface Accuracy {
  size: number;
  top1: number;
  top3: number;
  perCourier: Record<string, { n: number; top1: number; top3: number }>;
  misses: Array<{ no: string; com: string; got: string[] }>;
  /** The same figures on the held-out part alone (null when the sample has none). */
  heldOut: { size: number; top1: number; top3: number } | null;
}

const here = dirname(fileURLToPath(import.meta.url));

export function loadSample(): RealSample[] {
  const doc = JSON.parse(readFileSync(join(here, 'fixtures', 'real-numbers.json'), 'utf8')) as {
    samples: RealSample[];
  };
  return doc.samples;
}

export function measureAccuracy(samples: RealSample[] = loadSample()): Accuracy {
  let top1 = 0;
  let top3 = 0;
  const perCourier: Accuracy['perCourier'] = {};
  const misses: Accuracy['misses'] = [];
  for (const s of samples) {
    const norm = normaliseNumber(s.no);
    const got = norm.ok ? detectCouriers(norm.no).candidates.map((c) => c.courier.code) : [];
    const row = (perCourier[s.com] ??= { n: 0, top1: 0, top3: 0 });
    row.n += 1;
    if (got[0] === s.com) {
      top1 += 1;
      row.top1 += 1;
    } else {
      misses.push({ no: s.no, com: s.com, got: got.slice(0, 3) });
    }
    if (got.slice(0, 3).includes(s.com)) {
      top3 += 1;
      row.top3 += 1;
    }
  }
  const held = samples.filter((s) => s.held_out);
  const heldMisses = new Set(misses.map((m) => m.no));
  const heldTop3 = held.filter((s) => {
    const norm = normaliseNumber(s.no);
    return (
      norm.ok &&
      detectCouriers(norm.no)
        .candidates.slice(0, 3)
        .some((c) => c.courier.code === s.com)
    );
  }).length;
  const heldOut = held.length
    ? {
        size: held.length,
        top1: held.filter((s) => !heldMisses.has(s.no)).length / held.length,
        top3: heldTop3 / held.length,
      }
    : null;
  return {
    size: samples.length,
    top1: top1 / samples.length,
    top3: top3 / samples.length,
    perCourier,
    misses,
    heldOut,
  };
}

export function formatAccuracy(a: Accuracy): string {
  const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;
  const lines = [`real numbers: ${a.size}  top-1: ${pct(a.top1)}  top-3: ${pct(a.top3)}`];
  if (a.heldOut)
    lines.push(
      `held out (collected after the rules): ${a.heldOut.size}  top-1: ${pct(a.heldOut.top1)}  top-3: ${pct(a.heldOut.top3)}`,
    );
  for (const [com, r] of Object.entries(a.perCourier).sort((x, y) => y[1].n - x[1].n)) {
    lines.push(`  ${com.padEnd(16)} n=${String(r.n).padStart(3)}  top-1 ${r.top1}/${r.n}  top-3 ${r.top3}/${r.n}`);
  }
  for (const m of a.misses) lines.push(`  miss ${m.no} is ${m.com}, ranked ${m.got.join(' > ') || '(nothing)'}`);
  return lines.join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  console.log(formatAccuracy(measureAccuracy()));
}
