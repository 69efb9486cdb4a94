// A Host for plugin unit tests that calls a handler directly in Node (no isolate). It uses the real
// host.fetch policy (allow-list from plugin.json, redirect checks, size cap), so nock fixtures exercise the
// same code path as production. DNS is faked: every name resolves to a public address unless told otherwise.
import { createHash, createHmac } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Host, LogLevel, PluginManifest } from '../../core/sandbox/contract.js';
import { DEFAULT_MAX_RESPONSE_BYTES, hostFetch } from '../../core/sandbox/host-fetch.js';

export interface DirectHostOptions {
  plugin: string;
  operation?: string;
  options?: Record<string, unknown>;
  /** host name -> addresses; names not listed resolve to 93.184.216.34 */
  dns?: Record<string, string[]>;
  now?: number;
  deadlineMs?: number;
}

export interface DirectHost extends Host {
  logs: Array<{ level: LogLevel; message: string; fields?: Record<string, unknown> }>;
  dispose(): void;
}

export function createDirectHost(opts: DirectHostOptions): DirectHost {
  const dir = resolve('plugins', opts.plugin);
  const manifest = JSON.parse(readFileSync(join(dir, 'plugin.json'), 'utf8')) as PluginManifest;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), opts.deadlineMs ?? manifest.timeout_ms);
  const logs: DirectHost['logs'] = [];
  const options = opts.options ?? {};
  const assetPath = (name: string): string | null => {
    const decl = manifest.assets?.find((a) => a.name === name);
    if (!decl) throw new Error(`asset ${name} is not declared in plugins/${opts.plugin}/plugin.json`);
    if (decl.path) return join(dir, decl.path);
    const fromOption = decl.option ? options[decl.option] : undefined;
    return typeof fromOption === 'string' && fromOption ? resolve(fromOption) : null;
  };
  return {
    logs,
    options,
    operation: opts.operation ?? opts.plugin,
    fetch: (url, init) =>
      hostFetch(url, init, {
        plugin: opts.plugin,
        allowHosts: manifest.allow_hosts,
        maxResponseBytes: manifest.max_response_bytes ?? DEFAULT_MAX_RESPONSE_BYTES,
        resolver: async (h) => opts.dns?.[h] ?? ['93.184.216.34'],
        signal: controller.signal,
      }),
    log: (level, message, fields) => void logs.push({ level, message, fields }),
    asset: async (name) => {
      const p = assetPath(name);
      if (!p || !existsSync(p)) throw new Error(`asset ${name} is not available`);
      const buf = readFileSync(p);
      return buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength) as ArrayBuffer;
    },
    hasAsset: async (name) => {
      const p = assetPath(name);
      return !!p && existsSync(p);
    },
    now: () => opts.now ?? Date.now(),
    digest: (algorithm, data, encoding) => createHash(algorithm).update(data, 'utf8').digest(encoding),
    hmac: (algorithm, key, data, encoding) => createHmac(algorithm, key).update(data, 'utf8').digest(encoding),
    dispose: () => clearTimeout(timer),
  };
}
