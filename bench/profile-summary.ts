// Where the gateway's time went: the self time of a V8 CPU profile (node --cpu-prof), summed per function and
// per source area (our code by folder, node_modules by package, Node internals, native/GC), largest first.
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

function areaOf(url: string, name: string): string {
  if (!url) return name.startsWith('(') ? name : '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  if (url.startsWith('node:')) return 'node internals';
  const ours = /\/(core\/[^/]+|plugins\/[^/]+|bench)\//.exec(url);
  return ours ? ours[1] : url;
}

function top(totals: Map<string, number>, all: number, n: number): string[] {
  return [...totals.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, v]) => `  ${((100 * v) / all).toFixed(1).padStart(5)}%  ${k}`);
}

/** The summary, and the share of samples the thread was busy (Node's module loader thread writes a profile too). */
export function summariseProfile(path: string, rows = 12): { busy: number; text: string } {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const hits = new Map<number, number>();
  for (const id of profile.samples) hits.set(id, (hits.get(id) ?? 0) + 1);
  const byArea = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let all = 0;
  for (const [id, count] of hits) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    all += count;
    const area = areaOf(url, functionName);
    byArea.set(area, (byArea.get(area) ?? 0) + count);
    const fn = `${functionName || '(anonymous)'} ${url ? `${url.replace(/^.*\/(node_modules|core|plugins)\//, '$1/')}:${lineNumber + 1}` : ''}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + count);
  }
  const idle = byArea.get('(idle)') ?? 0;
  const text = [
    `profile ${path}: ${all} samples, ${((100 * (all - idle)) / all).toFixed(0)}% busy`,
    'self time by area:',
    ...top(byArea, all, rows),
    'self time by function:',
    ...top(byFunction, all, rows),
  ].join('\n');
  return { busy: all - idle, text };
}

/**
 * Microseconds of samples with each named function on the stack (inclusive time; a function counted once per
 * sample however often it recurs). A name may say its file, `admit@upstream-health.ts`. After an `await` a V8 stack starts again at the resumed function, so an async
 * function's figure is its own resumed parts and what they call synchronously, not what it awaits.
 */
export function inclusiveMicros(path: string, names: readonly string[]): Map<string, number> {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
  const parent = new Map<number, ProfileNode>();
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n);
  const wanted = new Set(names);
  const out = new Map<string, number>(names.map((n) => [n, 0]));
  profile.samples.forEach((id, i) => {
    // The delta before the next sample is the time this one stands for.
    const us = profile.timeDeltas[i + 1] ?? 0;
    const seen = new Set<string>();
    for (let n = byId.get(id); n; n = parent.get(n.id)) {
      const file = n.callFrame.url.slice(n.callFrame.url.lastIndexOf('/') + 1);
      const name = wanted.has(`${n.callFrame.functionName}@${file}`)
        ? `${n.callFrame.functionName}@${file}`
        : n.callFrame.functionName;
      if (wanted.has(name) && !seen.has(name)) {
        seen.add(name);
        out.set(name, (out.get(name) ?? 0) + us);
      }
    }
  });
  return out;
}

/** `name file:line` of a profile node, as the summary prints it. */
const nodeKey = (n: ProfileNode): string => {
  const { functionName, url, lineNumber } = n.callFrame;
  return `${functionName || '(anonymous)'} ${url ? `${url.replace(/^.*\/(node_modules|core|plugins|bench)\//, '$1/')}:${lineNumber + 1}` : ''}`;
};

/**
 * Self time per function (microseconds) inside each labelled window of the profile; windows in microseconds of the
 * monotonic clock, which `process.hrtime` reads in every process on the machine, as V8 stamps its samples.
 */
export function selfByWindow(
  path: string,
  windows: ReadonlyArray<[string, number, number]>,
): Map<string, Map<string, number>> {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile & { startTime: number };
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const out = new Map<string, Map<string, number>>(windows.map(([label]) => [label, new Map()]));
  let t = profile.startTime;
  profile.samples.forEach((id, i) => {
    t += profile.timeDeltas[i];
    const us = profile.timeDeltas[i + 1] ?? 0;
    const w = windows.find(([, a, b]) => t >= a && t < b);
    const node = byId.get(id);
    if (!w || !node) return;
    const m = out.get(w[0]) as Map<string, number>;
    const k = nodeKey(node);
    m.set(k, (m.get(k) ?? 0) + us);
  });
  return out;
}
