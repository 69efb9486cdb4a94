// An operation's `upstreams:` as the gateway uses them: hosts taken from the literal URLs (they become the calls'
// only allowed hosts), ${ENV} secrets read here on the host, amounts in micro-TOKEN, and the spec the http plugin
// receives for one attempt. Validation of the expressions is in upstream-expressions.ts.
import { createHash } from 'node:crypto';
import { toMicro } from '../kernel/money.js';
import type { UPSTREAM_ERROR_CODES } from './upstream-schema.js';

export type UpstreamErrorCode = (typeof UPSTREAM_ERROR_CODES)[number];
type RawText = string | { zh: string; en: string };

export interface RawUpstream {
  id: string;
  priority?: number;
  weight?: number;
  cost_per_call?: number;
  timeout_ms?: number;
  enabled?: boolean;
  cache_key?: string;
  cache_ttl?: number;
  not_found_ttl?: number;
  request: {
    method?: string;
    url: string;
    let?: Record<string, string>;
    query?: Record<string, string>;
    headers?: Record<string, string>;
    form?: Record<string, string>;
    json?: unknown;
  };
  success?: string;
  result: string;
  errors?: Array<{ when: string; code: UpstreamErrorCode; message?: RawText; next?: boolean; disable_s?: number }>;
  circuit?: { failures?: number; cool_down_s?: number };
}

/** What plugins/http receives as `host.options.upstream` for one attempt (plain JSON). */
export interface UpstreamSpec {
  /** Hash of the spec: the isolate compiles its expressions once per key (a config version). */
  key: string;
  id: string;
  request: RawUpstream['request'] & { method: string };
  success: string | null;
  result: string;
  errors: Array<{
    when: string;
    code: UpstreamErrorCode;
    message: { zh: string; en: string } | null;
    next: boolean;
    disable_s: number | null;
  }>;
  /** ${NAME} values for the templates and `$env.NAME` in request expressions; never seen by response expressions. */
  env: Record<string, string>;
}

export interface UpstreamConfig {
  id: string;
  priority: number;
  weight: number;
  costMicro: number;
  timeoutMs: number | null;
  hosts: string[];
  /** Env variables the upstream names but that are not set: such an upstream is never tried. */
  missing: string[];
  failures: number;
  coolDownS: number;
  /** `cache_key` (JSONata over { input }) and its TTL: answers kept per key in the shared state's cache. */
  cacheKey: string | null;
  cacheTtlS: number;
  /** `not_found_ttl`: how long a NOT_FOUND for a key is kept (default a day, never longer than `cache_ttl`). */
  notFoundTtlS: number;
  /** `host.options` of an attempt: { upstream: spec }, built once per load. */
  options: { upstream: UpstreamSpec };
}

const SECRET = /\$\{([A-Z_][A-Z0-9_]*)\}/g;
const ENV_REF = /\$env\.([A-Z_][A-Z0-9_]*)/g;
/** Scheme and authority must be literal: no template or secret may choose the host. */
const URL_HEAD = /^https?:\/\/([A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?)(?::(\d{1,5}))?(?:[/?#]|$)/;
const RETRY_BY_DEFAULT: ReadonlySet<UpstreamErrorCode> = new Set([
  'UPSTREAM_FAILED',
  'UPSTREAM_TIMEOUT',
  'UNAVAILABLE',
]);

export class UpstreamConfigError extends Error {
  constructor(
    readonly pointer: string,
    message: string,
  ) {
    super(message);
  }
}

function strings(v: unknown, out: string[]): string[] {
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) for (const x of v) strings(x, out);
  else if (v && typeof v === 'object') for (const x of Object.values(v)) strings(x, out);
  return out;
}

/** The host of a literal URL, or an error naming what is wrong. */
export function urlHost(url: string): string | null {
  const m = URL_HEAD.exec(url);
  return m ? m[1].toLowerCase() : null;
}

function textOf(t: RawText | undefined): { zh: string; en: string } | null {
  if (t === undefined) return null;
  return typeof t === 'string' ? { zh: t, en: t } : t;
}

export function toUpstream(raw: RawUpstream, at: string, env: NodeJS.ProcessEnv): UpstreamConfig {
  const host = urlHost(raw.request.url);
  if (!host) {
    throw new UpstreamConfigError(
      `${at}/request/url`,
      'must start with a literal http(s)://host (no {{ }} or ${ } before the path): the host is what the call may reach',
    );
  }
  const names = new Set<string>();
  for (const s of strings(raw.request, [])) {
    for (const m of s.matchAll(SECRET)) names.add(m[1]);
    for (const m of s.matchAll(ENV_REF)) names.add(m[1]);
  }
  const values: Record<string, string> = {};
  const missing: string[] = [];
  for (const n of [...names].sort()) {
    const v = env[n];
    if (v === undefined || v === '') missing.push(n);
    else values[n] = v;
  }
  if (raw.not_found_ttl !== undefined && !raw.cache_key)
    throw new UpstreamConfigError(`${at}/not_found_ttl`, 'needs cache_key: NOT_FOUND answers are kept per key');
  let costMicro: number;
  try {
    costMicro = toMicro(raw.cost_per_call ?? 0);
  } catch {
    throw new UpstreamConfigError(`${at}/cost_per_call`, `amount ${raw.cost_per_call} has more than 6 decimals`);
  }
  const body = {
    id: raw.id,
    request: {
      ...raw.request,
      method: raw.request.method ?? (raw.request.form || raw.request.json !== undefined ? 'POST' : 'GET'),
    },
    success: raw.success ?? null,
    result: raw.result,
    errors: (raw.errors ?? []).map((e) => ({
      when: e.when,
      code: e.code,
      message: textOf(e.message),
      next: e.next ?? RETRY_BY_DEFAULT.has(e.code),
      disable_s: e.disable_s ?? null,
    })),
    env: values,
  };
  const key = createHash('sha256').update(JSON.stringify(body)).digest('base64url').slice(0, 22);
  return {
    id: raw.id,
    priority: raw.priority ?? 1,
    weight: raw.weight ?? 1,
    costMicro,
    timeoutMs: raw.timeout_ms ?? null,
    hosts: [host],
    missing,
    failures: raw.circuit?.failures ?? 5,
    coolDownS: raw.circuit?.cool_down_s ?? 30,
    cacheKey: raw.cache_key ?? null,
    cacheTtlS: raw.cache_ttl ?? 7 * 86_400,
    notFoundTtlS: raw.not_found_ttl ?? Math.min(86_400, raw.cache_ttl ?? 86_400),
    options: { upstream: { key, ...body } },
  };
}
