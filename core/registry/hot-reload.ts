// Keeps the current Registry and swaps it when operations.yaml changes. A bad edit keeps the last good
// registry and logs why; calls in flight hold a reference to the snapshot they started with.
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
  env?: NodeJS.ProcessEnv;
  onReload?: (registry: Registry) => void;
}

export async function createRegistryHolder(opts: RegistryHolderOptions): Promise<RegistryHolder> {
  // The first load throws: a broken file at start must stop the service with the reason.
  let current = buildRegistry(loadOperationsConfig(opts.file, opts.env), opts.pluginExists, 1);
  warnUnavailable(current, opts.logger);
  let watcher: FSWatcher | null = null;
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

  if (opts.watch) {
    // Watch the folder, not the file: editors replace files on save, which ends a watch on the old inode.
    const name = basename(opts.file);
    watcher = watch(dirname(opts.file), (_event, changed) => {
      if (changed !== name) return;
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => {
        reloading = (reloading ?? Promise.resolve(true)).then(reload);
      }, 150);
    });
    watcher.unref();
  }

  return {
    get current() {
      return current;
    },
    reload: () => (reloading = (reloading ?? Promise.resolve(true)).then(reload)),
    close() {
      if (timer) clearTimeout(timer);
      watcher?.close();
    },
  };
}
