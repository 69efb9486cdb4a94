// Build step: bundles the web console (web/src) with esbuild into web/dist —
// one minified JS file, one CSS file (both named by content hash, so they can be cached forever) and an
// index.html that points at them. Runs on every npm install (postinstall) and, when dist is missing, on the
// first console request (core/console/web-serve.ts).
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const CONSOLE_WEB_DIR = join(ROOT, 'web');
export const DEFAULT_CONSOLE_DIST = join(CONSOLE_WEB_DIR, 'dist');

export interface ConsoleBuildResult {
  outDir: string;
  js: string;
  css: string;
  bytes: number;
}

function escapeAttr(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

/** Builds into a temporary sibling directory, then swaps it in, so a running server never sees half a build. */
export async function buildConsoleBundle(
  outDir = DEFAULT_CONSOLE_DIST,
  opts: { quiet?: boolean } = {},
): Promise<ConsoleBuildResult> {
  const tmp = `${outDir}.tmp-${process.pid}-${Date.now()}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(join(tmp, 'assets'), { recursive: true });
  try {
    const result = await build({
      entryPoints: [join(CONSOLE_WEB_DIR, 'src/main.ts'), join(CONSOLE_WEB_DIR, 'src/styles.css')],
      bundle: true,
      platform: 'browser',
      format: 'esm',
      target: 'es2020',
      minify: true,
      legalComments: 'none',
      entryNames: 'console-[hash]',
      outdir: join(tmp, 'assets'),
      metafile: true,
      write: true,
      logLevel: 'silent',
      charset: 'utf8',
    });
    const outputs = Object.keys(result.metafile.outputs).map((p) => basename(p));
    const js = outputs.find((f) => f.endsWith('.js'));
    const css = outputs.find((f) => f.endsWith('.css'));
    if (!js || !css)
      throw new Error(`esbuild produced ${outputs.join(', ') || 'nothing'}; expected one .js and one .css`);
    const html = readFileSync(join(CONSOLE_WEB_DIR, 'index.html'), 'utf8')
      .replace('%CSS%', escapeAttr(`/console/assets/${css}`))
      .replace('%JS%', escapeAttr(`/console/assets/${js}`));
    writeFileSync(join(tmp, 'index.html'), html);
    // Move the old build aside first: the gap between the two renames is the only moment without a dist.
    const old = `${outDir}.old-${process.pid}-${Date.now()}`;
    if (existsSync(outDir)) renameSync(outDir, old);
    renameSync(tmp, outDir);
    rmSync(old, { recursive: true, force: true });
    const bytes = Object.values(result.metafile.outputs).reduce((n, o) => n + o.bytes, 0);
    if (!opts.quiet)
      console.log(`[tollgate] console bundle: ${js} + ${css} (${Math.round(bytes / 1024)} KiB) in ${outDir}`);
    return { outDir, js, css, bytes };
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
}
