// `node --import ./core/bin/load-ts.mjs core/main.ts`: runs the TypeScript sources as they are, compiled on load
// by esbuild (ts-hooks.mjs), with stack traces mapped back to the .ts lines.
// Why not tsx: it compiles with esbuild's `keepNames`, which wraps every function the code creates in a
// `__name(fn, "name")` call, a defineProperty per closure per call, a measurable share of the gateway's hot path
// (docs/performance.md "The TypeScript loader"); names are kept without it, since nothing here is
// minified or bundled. What tsx does beyond this (tsconfig paths, CommonJS TypeScript, extensionless imports) the
// code does not use.
import { register } from 'node:module';

register('./ts-hooks.mjs', import.meta.url);
process.setSourceMapsEnabled(true);
