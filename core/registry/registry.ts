// Operations bound to plugins, with validators compiled and route aliases resolved: one immutable snapshot per
// config load. A call takes the snapshot current at its start and finishes on it, whatever reloads happen.
import { basename } from 'node:path';
import type { OperationConfig, OperationsConfig, PackageConfig, PlanConfig } from '../config/operations-config.js';
import { ConfigError } from '../config/operations-loader.js';
import { compileResponseCheck } from '../config/response-check.js';
import { hashOf } from '../kernel/canonical.js';
import { type ChargeRule, compileChargeRule, compileFallbackRule } from './charge-rule.js';
import { compileInputValidator, createValidatorCompilers, type InputValidator } from './input-validator.js';

export interface Operation extends OperationConfig {
  validator: InputValidator;
  /** Plugin and options, hashed once per load: part of every cache key, so not recomputed per call. */
  optionsHash: string;
  /** For operations with `upstreams`: the mapped `data` against `response` (null = matches, else the path). */
  responseCheck: ((data: unknown) => string | null) | null;
  /** `charge_when` compiled once per load (core/pipeline/charge-when.ts). */
  chargeRule: ChargeRule | null;
  /** `fallback_when` compiled once per load: true asks the upstreams after the plugin (core/pipeline/fallback.ts). */
  fallbackRule: ((data: unknown) => Promise<boolean>) | null;
}

interface RouteMatcher {
  method: 'GET' | 'POST';
  regex: RegExp;
  params: string[];
  code: string;
}

export interface RouteMatch {
  operation: Operation;
  params: Record<string, string>;
}

export interface Registry {
  /** Increases with every successful load; part of cache keys so a config change never serves stale shapes. */
  readonly version: number;
  readonly config: OperationsConfig;
  get(code: string): Operation | undefined;
  list(): Operation[];
  /** Route aliases declared with `routes:` (e.g. GET /api/video/:id). */
  matchAlias(method: string, path: string): RouteMatch | undefined;
  plan(id: string): PlanConfig | undefined;
  package(id: string): PackageConfig | undefined;
}

function compileRoute(path: string): { regex: RegExp; params: string[] } {
  const params: string[] = [];
  const source = path
    .split('/')
    .map((seg) => {
      if (seg.startsWith(':')) {
        params.push(seg.slice(1));
        return '([^/]+)';
      }
      return seg.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&');
    })
    .join('/');
  return { regex: new RegExp(`^${source}/?$`), params };
}

export function buildRegistry(
  config: OperationsConfig,
  pluginExists: (name: string) => boolean,
  version: number,
  pluginTakesHosts: (name: string) => boolean = (name) => name === 'http',
): Registry {
  const compilers = createValidatorCompilers();
  const file = basename(config.file);
  const ops = new Map<string, Operation>();
  const routes: RouteMatcher[] = [];
  config.operations.forEach((op, i) => {
    if (!pluginExists(op.plugin)) {
      throw new ConfigError(
        `${file}: operation "${op.code}" at /operations/${i}/plugin: no plugin folder "${op.plugin}"`,
      );
    }
    let validator: InputValidator;
    try {
      validator = compileInputValidator(compilers, op.code, op.input);
    } catch (err) {
      throw new ConfigError(`${file}: operation "${op.code}" at /operations/${i}/input: ${(err as Error).message}`);
    }
    if (!op.enabled) return;
    if (op.upstreams && !pluginTakesHosts(op.fallbackWhen ? 'http' : op.plugin)) {
      throw new ConfigError(
        `${file}: operation "${op.code}" at /operations/${i}/plugin: plugin "${op.plugin}" does not run upstreams (use http)`,
      );
    }
    // The upstreams' specs are part of the cache key: a changed mapping never serves answers of the old one.
    const optionsHash = op.upstreams
      ? hashOf(
          op.plugin,
          op.options,
          op.upstreams.map((u) => u.options.upstream.key),
        )
      : hashOf(op.plugin, op.options);
    const responseCheck = op.upstreams && op.response ? compileResponseCheck(op.response) : null;
    const chargeRule = op.chargeWhen ? compileChargeRule(op.chargeWhen) : null;
    const fallbackRule = op.fallbackWhen ? compileFallbackRule(op.fallbackWhen) : null;
    ops.set(op.code, { ...op, validator, optionsHash, responseCheck, chargeRule, fallbackRule });
    for (const r of op.routes) {
      const { regex, params } = compileRoute(r.path);
      routes.push({ method: r.method, regex, params, code: op.code });
    }
  });
  const plans = new Map(config.plans.map((p) => [p.id, p]));
  const packages = new Map(config.packages.map((p) => [p.id, p]));
  return {
    version,
    config,
    get: (code) => ops.get(code),
    list: () => [...ops.values()],
    matchAlias(method, path) {
      for (const r of routes) {
        if (r.method !== method && !(method === 'HEAD' && r.method === 'GET')) continue;
        const m = r.regex.exec(path);
        if (!m) continue;
        const params: Record<string, string> = {};
        r.params.forEach((name, i) => {
          params[name] = decodeURIComponent(m[i + 1]);
        });
        return { operation: ops.get(r.code)!, params };
      }
      return undefined;
    },
    plan: (id) => plans.get(id),
    package: (id) => packages.get(id),
  };
}
