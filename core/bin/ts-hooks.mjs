// Module hooks for load-ts.mjs, on Node's loader thread: `./x.js` imported from a .ts file is `./x.ts` when only
// that exists (TypeScript's NodeNext spelling), and .ts files are compiled to JavaScript with esbuild on load.
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { transform } from 'esbuild';

// The project's tsconfig.json, as tsc and the editor read it: esbuild honours the options that change the output
// (verbatimModuleSyntax; target, and with it class-field semantics) and accepts the file's comments.
const TSCONFIG = readFileSync(new URL('../../tsconfig.json', import.meta.url), 'utf8');
const TARGET = `node${process.versions.node}`;

export async function resolve(specifier, context, nextResolve) {
  if (
    context.parentURL?.startsWith('file:') &&
    context.parentURL.endsWith('.ts') &&
    /^(\.\.?\/|\/|file:)/.test(specifier) &&
    specifier.endsWith('.js')
  ) {
    const ts = new URL(`${specifier.slice(0, -3)}.ts`, context.parentURL);
    if (!existsSync(new URL(specifier, context.parentURL)) && existsSync(ts))
      return { url: ts.href, shortCircuit: true };
  }
  return nextResolve(specifier, context);
}

export async function load(url, context, nextLoad) {
  if (!url.startsWith('file:') || !url.endsWith('.ts')) return nextLoad(url, context);
  const path = fileURLToPath(url);
  const { code } = await transform(await readFile(path, 'utf8'), {
    loader: 'ts',
    format: 'esm',
    target: TARGET,
    sourcemap: 'inline',
    sourcefile: path,
    tsconfigRaw: TSCONFIG,
  });
  return { format: 'module', source: code, shortCircuit: true };
}
