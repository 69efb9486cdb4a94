// Bundles a plugin's handler.ts (and whatever it imports) into one script for the isolate. Platform neutral
// keeps Node built-ins out at build time, so `import 'node:fs'` fails here, with the plugin's name, rather
// than at run time inside the isolate.

import { join } from 'node:path';
import { build, type Message } from 'esbuild';

export const HANDLER_FILE = 'handler.ts';
/** The iife's global: the bootstrap reads `__plugin.plugin` and then clears it. */
export const BUNDLE_GLOBAL = '__plugin';

export class BundleError extends Error {
  override readonly name = 'BundleError';
  constructor(
    readonly plugin: string,
    message: string,
  ) {
    super(`plugin ${plugin}: bundling ${HANDLER_FILE} failed: ${message}`);
  }
}

function formatMessages(messages: Message[]): string {
  return messages
    .slice(0, 5)
    .map((m) => (m.location ? `${m.location.file}:${m.location.line}:${m.location.column}: ${m.text}` : m.text))
    .join('; ');
}

export interface PluginBundle {
  code: string;
  /** Files that went into the bundle (for change detection and for seeing what got pulled in). */
  inputs: string[];
}

export async function bundlePlugin(plugin: string, dir: string): Promise<PluginBundle> {
  try {
    const result = await build({
      entryPoints: [join(dir, HANDLER_FILE)],
      bundle: true,
      write: false,
      platform: 'neutral',
      format: 'iife',
      globalName: BUNDLE_GLOBAL,
      target: 'es2022',
      mainFields: ['module', 'main'],
      conditions: ['import', 'default'],
      // Unminified: isolated-vm applies no source maps, so stack traces must be readable as they are.
      minify: false,
      metafile: true,
      logLevel: 'silent',
    });
    const out = result.outputFiles?.[0];
    if (!out) throw new BundleError(plugin, 'esbuild produced no output');
    return { code: out.text, inputs: Object.keys(result.metafile?.inputs ?? {}) };
  } catch (err) {
    if (err instanceof BundleError) throw err;
    const errors = (err as { errors?: Message[] }).errors;
    throw new BundleError(plugin, errors?.length ? formatMessages(errors) : (err as Error).message);
  }
}
