// The sandbox as the rest of the gateway sees it: plugin names, manifests, and run(). Plugins are discovered
// as sub-folders with a plugin.json under each plugin dir; each gets its bundle and its own isolate pool.
import { createHash } from 'node:crypto';
import { readdir, stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ProxyAgent, fetch as undiciFetch } from 'undici';
import { type Logger, lazyChild } from '../kernel/logger.js';
import { type Resolver, systemResolver } from './address-policy.js';
import { AssetStore } from './assets.js';
import { bundlePlugin } from './bundle.js';
import type { PluginManifest } from './contract.js';
import { IsolatePool } from './isolate-pool.js';
import { LogBudget } from './log-budget.js';
import { loadManifest, MANIFEST_FILE } from './manifest.js';
import type { SandboxOutcome } from './outcome.js';
import { pinnedFetch } from './pinned-fetch.js';

export type { SandboxOutcome } from './outcome.js';

export interface RunRequest {
  plugin: string;
  operation: string;
  input: Record<string, unknown>;
  options: Record<string, unknown>;
  /** A canary's probe of one of the plugin's own providers (host.pin, contract.ts); never set for a customer. */
  pin?: string;
  /** Hosts the call may reach, for a plugin whose manifest says hosts_from_operation (ignored otherwise). */
  allowHosts?: readonly string[];
  timeoutMs: number;
  requestId: string;
  /** Whose host.log budget the call draws from (the API key id); calls without one share the plugin's. */
  logKey?: string;
}

export interface RunResult {
  outcome: SandboxOutcome;
  pluginMs: number;
}

export interface SandboxOptions {
  pluginDirs: string[];
  logger: Logger;
  poolSize?: number;
  resolver?: Resolver;
  httpsProxy?: string;
  maxPerIsolate?: number;
}

export interface Sandbox {
  has(plugin: string): boolean;
  manifest(plugin: string): PluginManifest | undefined;
  names(): string[];
  run(req: RunRequest): Promise<RunResult>;
  /** Re-scan pluginDirs: load new plugin folders (existing pools stay; changed bundles are rebuilt). */
  refresh(): Promise<void>;
  close(): Promise<void>;
}

interface Loaded {
  dir: string;
  manifest: PluginManifest;
  /** Hash of manifest + bundle: a refresh rebuilds a pool only when this changes. */
  fingerprint: string;
  pool: IsolatePool;
}

const DEFAULT_MAX_PER_ISOLATE = 32;

/** Plugin folders under the plugin dirs; a folder without plugin.json (e.g. plugins/_lib) is not a plugin. */
export async function discover(pluginDirs: string[]): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  for (const root of pluginDirs.map((d) => resolve(d))) {
    const entries = await readdir(root, { withFileTypes: true }).catch(() => []);
    for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      if (!e.isDirectory()) continue;
      const dir = join(root, e.name);
      if (
        !(await stat(join(dir, MANIFEST_FILE)).then(
          (s) => s.isFile(),
          () => false,
        ))
      )
        continue;
      const other = found.get(e.name);
      if (other) throw new Error(`plugin ${e.name} is defined twice: ${other} and ${dir}`);
      found.set(e.name, dir);
    }
  }
  return found;
}

function proxyFetch(proxyUrl: string): typeof fetch {
  const dispatcher = new ProxyAgent(proxyUrl);
  // undici's fetch is the implementation behind the global one; the types differ only nominally.
  const impl = (input: Parameters<typeof fetch>[0], init?: RequestInit) =>
    undiciFetch(input as Parameters<typeof undiciFetch>[0], {
      ...(init as Parameters<typeof undiciFetch>[1]),
      dispatcher,
    });
  return impl as unknown as typeof fetch;
}

export async function createSandbox(opts: SandboxOptions): Promise<Sandbox> {
  const logger = opts.logger;
  const size = Math.max(1, opts.poolSize ?? availableParallelism());
  const maxPerIsolate = Math.max(1, opts.maxPerIsolate ?? DEFAULT_MAX_PER_ISOLATE);
  const resolver = opts.resolver ?? systemResolver;
  // With the system resolver (production) the address check also runs at connect time; an injected resolver
  // (tests) keeps the global fetch, which nock intercepts.
  const fetchImpl = opts.httpsProxy ? proxyFetch(opts.httpsProxy) : opts.resolver ? undefined : pinnedFetch();
  const assets = new AssetStore();
  const logBudget = new LogBudget();
  const plugins = new Map<string, Loaded>();
  let closed = false;

  async function load(name: string, dir: string): Promise<Loaded> {
    const manifest = await loadManifest(dir);
    const bundle = await bundlePlugin(name, dir);
    const fingerprint = createHash('sha256')
      .update(JSON.stringify(manifest))
      .update('\0')
      .update(bundle.code)
      .digest('hex');
    const prev = plugins.get(name);
    if (prev && prev.fingerprint === fingerprint && prev.dir === dir) return prev;
    const pool = new IsolatePool({
      plugin: name,
      pluginDir: dir,
      manifest,
      code: bundle.code,
      size,
      maxPerIsolate,
      logger,
      assets,
      resolver,
      fetchImpl,
      logBudget,
    });
    await pool.start();
    return { dir, manifest, fingerprint, pool };
  }

  // At startup a broken plugin is fatal: serving with an operation silently missing is worse than not starting.
  for (const [name, dir] of await discover(opts.pluginDirs)) plugins.set(name, await load(name, dir));
  logger.info('sandbox ready', { plugins: [...plugins.keys()], isolates_per_plugin: size });

  return {
    has: (plugin) => plugins.has(plugin),
    manifest: (plugin) => plugins.get(plugin)?.manifest,
    names: () => [...plugins.keys()],

    async run(req) {
      const started = performance.now();
      const entry = plugins.get(req.plugin);
      if (closed) throw new Error('sandbox is closed');
      if (!entry) throw new Error(`unknown plugin ${req.plugin}`); // the registry binds only loaded plugins: a bug
      const deadlineMs = Math.max(1, Math.min(req.timeoutMs, entry.manifest.timeout_ms));
      const log = lazyChild(logger, { plugin: req.plugin, operation: req.operation, request_id: req.requestId });
      const outcome = await entry.pool.run({
        operation: req.operation,
        requestId: req.requestId,
        input: req.input,
        options: req.options,
        pin: req.pin,
        allowHosts: req.allowHosts,
        deadlineMs,
        deadlineAt: Date.now() + deadlineMs,
        log,
        logScope: `${req.plugin}|${req.logKey ?? '-'}`,
      });
      return { outcome, pluginMs: performance.now() - started };
    },

    async refresh() {
      const found = await discover(opts.pluginDirs);
      for (const [name, dir] of found) {
        const prev = plugins.get(name);
        try {
          const next = await load(name, dir);
          if (next === prev) continue;
          plugins.set(name, next);
          logger.info(prev ? 'plugin rebuilt' : 'plugin loaded', { plugin: name });
          // Calls already on the old pool finish there; it is disposed once they are done.
          if (prev) void prev.pool.close(prev.manifest.timeout_ms + 1000);
        } catch (err) {
          // A bad edit keeps the last good build serving.
          logger.error('plugin reload failed; keeping the previous build', {
            plugin: name,
            reason: (err as Error).message,
          });
        }
      }
      for (const name of plugins.keys()) {
        if (!found.has(name))
          logger.warn('plugin folder is gone; its loaded build keeps serving until restart', { plugin: name });
      }
    },

    async close() {
      closed = true;
      await Promise.all([...plugins.values()].map((p) => p.pool.close()));
      assets.clear();
    },
  };
}
