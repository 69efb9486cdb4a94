// The relative imports of every TypeScript file under core/ (type-only imports count: a type that points up
// still ties the lower layer to the upper one), read with the compiler's own pre-processor, not a regex.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

export interface ImportEdge {
  from: string;
  to: string;
}

/** Files of the gateway runtime; the browser console (its own tsconfig, bundled by esbuild) is not part of it. */
/** The server's source files (core/); with `withWeb`, the browser console's sources (web/src) too. */
export function coreFiles(root: string, withWeb = false): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) {
        if (name !== 'node_modules' && name !== 'dist') walk(path);
      } else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(relative(root, path));
    }
  };
  walk(join(root, 'core'));
  if (withWeb) walk(join(root, 'web', 'src'));
  return out.sort();
}

export function importEdges(root: string, files: string[]): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const from of files) {
    const info = ts.preProcessFile(readFileSync(join(root, from), 'utf8'), true, true);
    for (const imported of info.importedFiles) {
      if (!imported.fileName.startsWith('.')) continue;
      const to = relative(root, resolve(dirname(join(root, from)), imported.fileName.replace(/\.js$/, '.ts')));
      edges.push({ from, to });
    }
  }
  return edges;
}

/** Files that import each other in a circle (strongly connected components of more than one file). */
export function importCycles(edges: ImportEdge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const e of edges) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) cycles.push(component.sort());
    }
  };
  for (const v of next.keys()) if (!index.has(v)) visit(v);
  return cycles;
}

export function lineCount(root: string, file: string): number {
  return readFileSync(join(root, file), 'utf8').split('\n').length;
}
