// Keeps the current Registry and swaps it when operations.yaml or a plugin's files change (a plugin edit rebuilds
// that plugin's bundle and pool in the sandbox's refresh). A bad edit keeps the last good registry and logs why;
// calls in flight hold a reference to the snapshot they started with.
import { type FSWatcher, watch } from 'node:fs';
import { basename, dirname } from 'node:path';
import { missingSettingsText } from '../config/availability.js';
import { loadOperationsConfig } from '../config/operations-loader.js';
import type { Logger } from '../kernel/logger.js';
import { buildRegistry, type Registry } from './registry.js';

/** The operator learns at every load which operations are refused for want of settings, and what to set. */
function warnUnavailable(registry: Registry, logger: Logger): void {
  for (const op of registry.list()) {
    if (!op.availability.available)
      logger.warn('operation unavailable: not configured', {
        operation: op.code,
        fix: missingSettingsText(op.availability),
      });
  }
}

/** Not editor droppings (.swp, ~, dot files) nor installed dependencies. */
function pluginFile(changed: string | Buffer | null): boolean {
  if (changed === null) return false;
  const path = String(changed);
  return !/(^|[\\/])(\.|node_modules([\\/]|$))|~$|\.sw[px]$/.test(path);
}

export interface RegistryHolder {
  readonly current: Registry;
  /** Re-read the file now. Resolves true when the new config is live. */
  reload(): Promise<boolean>;
  close(): void;
}

export interface RegistryHolderOptions {
  file: string;
  logger: Logger;
  /** Called before binding, so newly added plugin folders are known. */
  refreshPlugins: () => Promise<void>;
  pluginExists: (name: string) => boolean;
  watch: boolean;
  /** Plugin folders (each holding one folder per plugin) whose files are watched too, recursively. */
  pluginDirs?: readonly string[];
  env?: NodeJS.ProcessEnv;
  onReload?: (registry: Registry) => void;
}

export async function createRegistryHolder(opts: RegistryHolderOptions): Promise<RegistryHolder> {
  // The first load throws: a broken file at start must stop the service with the reason.
  let current = buildRegistry(loadOperationsConfig(opts.file, opts.env), opts.pluginExists, 1);
  warnUnavailable(current, opts.logger);
  const watchers: FSWatcher[] = [];
  let timer: NodeJS.Timeout | null = null;
  let reloading: Promise<boolean> | null = null;

  const reload = async (): Promise<boolean> => {
    try {
      await opts.refreshPlugins();
      const next = buildRegistry(loadOperationsConfig(opts.file, opts.env), opts.pluginExists, current.version + 1);
      current = next;
      opts.logger.info('operations reloaded', {
        file: opts.file,
        version: next.version,
        operations: next.list().length,
      });
      warnUnavailable(next, opts.logger);
      opts.onReload?.(next);
      return true;
    } catch (err) {
      opts.logger.error('operations reload rejected; keeping the previous config', {
        file: opts.file,
        version: current.version,
        reason: (err as Error).message,
      });
      return false;
    }
  };

  // Several events come with one save (and an editor's temp files): one reload after they settle.
  const soon = (): void => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      reloading = (reloading ?? Promise.resolve(true)).then(reload);
    }, 150);
  };
  if (opts.watch) {
    // Watch the folder, not the file: editors replace files on save, which ends a watch on the old inode.
    const name = basename(opts.file);
    watchers.push(watch(dirname(opts.file), (_event, changed) => changed === name && soon()));
    for (const dir of opts.pluginDirs ?? []) {
      try {
        // A plugin's handler, its modules, plugin.json or an asset: the refresh rebuilds only what changed.
        watchers.push(watch(dir, { recursive: true }, (_event, changed) => pluginFile(changed) && soon()));
      } catch (err) {
        opts.logger.warn('plugin folder not watched', { dir, reason: (err as Error).message });
      }
    }
    for (const w of watchers) w.unref();
  }

  return {
    get current() {
      return current;
    },
    reload: () => (reloading = (reloading ?? Promise.resolve(true)).then(reload)),
    close() {
      if (timer) clearTimeout(timer);
      for (const w of watchers) w.close();
    },
  };
}
