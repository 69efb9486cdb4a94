// Where the gateway's time went: the self time of a V8 CPU profile (node --cpu-prof), summed per function and
// per source area (our code by folder, node_modules by package, Node internals, native/GC), largest first.
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
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
