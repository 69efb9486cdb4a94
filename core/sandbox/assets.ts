// Plugin data files (host.asset). Bytes are read once per resolved path and kept as an ExternalCopy outside
// any V8 heap, so every isolate of every pool gets its copy without re-reading the file.
import { readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import ivm from 'isolated-vm';
import type { PluginManifest } from './contract.js';
import { holdUntilExit, letGo } from './exit-guard.js';

export class AssetError extends Error {}

/** Absolute path of asset `name` for a call, or null when an option-driven asset is not configured. */
export function assetPath(
  manifest: PluginManifest,
  pluginDir: string,
  name: string,
  options: Readonly<Record<string, unknown>>,
): string | null {
  const decl = manifest.assets?.find((a) => a.name === name);
  if (!decl) throw new AssetError(`asset ${name} is not declared in plugins/${manifest.name}/plugin.json`);
  if (decl.path !== undefined) return join(pluginDir, decl.path);
  const fromOption = decl.option !== undefined ? options[decl.option] : undefined;
  // Option paths are written by the operator in operations.yaml and are relative to the process cwd.
  return typeof fromOption === 'string' && fromOption !== '' ? resolve(fromOption) : null;
}

export class AssetStore {
  private readonly cache = new Map<string, Promise<ivm.ExternalCopy<ArrayBuffer>>>();

  async exists(path: string | null): Promise<boolean> {
    if (path === null) return false;
    if (this.cache.has(path)) return true;
    return stat(path).then(
      (s) => s.isFile(),
      () => false,
    );
  }

  /** The cached bytes of `path`. A failed read is not cached, so a file that appears later is found. */
  bytes(path: string): Promise<ivm.ExternalCopy<ArrayBuffer>> {
    let entry = this.cache.get(path);
    if (!entry) {
      entry = readFile(path).then((buf) => {
        const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength) as ArrayBuffer;
        return holdUntilExit(new ivm.ExternalCopy(ab, { transferOut: true }));
      });
      this.cache.set(path, entry);
      entry.catch(() => this.cache.delete(path));
    }
    return entry;
  }

  clear(): void {
    for (const entry of this.cache.values()) {
      entry.then(
        (c) => {
          c.release();
          letGo(c);
        },
        () => undefined,
      );
    }
    this.cache.clear();
  }
}
