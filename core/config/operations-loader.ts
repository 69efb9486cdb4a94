// Reads operations.yaml, validates it against the meta-schema and converts it to OperationsConfig.
// Every error names the file, the operation code (when there is one) and the JSON pointer.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { Ajv } from 'ajv';
import { parse as parseYaml } from 'yaml';
import { toMicro } from '../kernel/money.js';
import { type Availability, availabilityOf } from './availability.js';
import { type CanaryConfig, parseCanary, type RawCanary } from './canary-config.js';
import { substituteEnv } from './env-substitution.js';
import type { InputSchema, OperationConfig, OperationsConfig, OperationText } from './operations-config.js';
import { operationsMetaSchema } from './operations-schema.js';
import { exampleMismatch } from './response-check.js';
import type { ResponseFields } from './response-fields.js';
import { type RawUpstream, toUpstream, type UpstreamConfig, UpstreamConfigError } from './upstream-config.js';
import { checkExpression, checkUpstreamExpressions } from './upstream-expressions.js';

export class ConfigError extends Error {}

const DEFAULT_TIMEOUT_MS = 10_000;
const validateMeta = new Ajv({ allErrors: true, strict: false }).compile(operationsMetaSchema);

type RawText = string | { zh: string; en: string };

interface RawOperation {
  code: string;
  name?: RawText;
  description?: RawText;
  requires?: string[][];
  plugin?: string;
  price_per_call: number;
  upstreams?: RawUpstream[];
  fallback_when?: string;
  charge_when?: string;
  cache_ttl?: number;
  timeout_ms?: number;
  enabled?: boolean;
  input: InputSchema;
  example?: Record<string, unknown>;
  response_example?: Record<string, unknown>;
  response?: ResponseFields;
  options?: Record<string, unknown>;
  routes?: string[];
  canary?: RawCanary;
}

interface RawPlan {
  id: string;
  name: RawText;
  description?: RawText;
  price: number;
  duration_days: number;
  grant_tokens?: number;
  quota: { calls_per_day: number; concurrency?: number; cache_free?: boolean };
  codes: string[];
}

interface RawPackage {
  id: string;
  name: RawText;
  description?: RawText;
  price: number;
  tokens: number;
}

interface RawFile {
  operations: RawOperation[];
  plans?: RawPlan[];
  packages?: RawPackage[];
  signup?: { trial_tokens?: number };
  manual_payment?: { instructions: RawText };
}

/** "operations.yaml: operation \"phone\" at /operations/0/price_per_call: must be >= 0" */
function where(file: string, raw: unknown, pointer: string): string {
  const m = /^\/(operations|plans|packages)\/(\d+)/.exec(pointer);
  let subject = '';
  if (m) {
    const list = (raw as Record<string, unknown[]> | null)?.[m[1]];
    const item = list?.[Number(m[2])] as { code?: unknown; id?: unknown } | undefined;
    const name = m[1] === 'operations' ? item?.code : item?.id;
    const kind = m[1].slice(0, -1);
    subject = typeof name === 'string' ? ` ${kind} "${name}"` : ` ${kind} #${Number(m[2]) + 1}`;
  }
  return `${basename(file)}:${subject} at ${pointer || '/'}`;
}

function money(file: string, raw: unknown, pointer: string, value: number): number {
  try {
    return toMicro(value);
  } catch {
    throw new ConfigError(`${where(file, raw, pointer)}: amount ${value} has more than 6 decimals`);
  }
}

function parseRoute(
  file: string,
  raw: unknown,
  pointer: string,
  route: string,
): { method: 'GET' | 'POST'; path: string } {
  const [method, path] = route.split(' ') as ['GET' | 'POST', string];
  // /api/_... is reserved for built-ins (/api/_balance); operation codes cannot start with _ either.
  if (path === '/api/health' || path.startsWith('/api/_') || /^\/api\/:[a-z]/.test(path)) {
    throw new ConfigError(`${where(file, raw, pointer)}: route ${route} would shadow a built-in path`);
  }
  return { method, path };
}

/** Name and description per language; a plain string serves both, a missing name is the code or id. */
function textOf(name: RawText | undefined, description: RawText | undefined, fallback: string): OperationText {
  const pick = (v: RawText | undefined, lang: 'zh' | 'en', dflt: string): string =>
    v === undefined ? dflt : typeof v === 'string' ? v : v[lang];
  const lang = (l: 'zh' | 'en') => ({ name: pick(name, l, fallback), description: pick(description, l, '') });
  return { zh: lang('zh'), en: lang('en') };
}

/**
 * The input schema as Ajv, the OpenAPI document and MCP read it: a property's description { zh, en } becomes the
 * plain English `description`, with the Chinese beside it as `x-description-zh` (as the response schemas carry
 * it), which the console shows in its Chinese UI.
 */
function inputOf(raw: InputSchema): InputSchema {
  const input: InputSchema = { additionalProperties: false, ...raw };
  if (!raw.properties) return input;
  input.properties = Object.fromEntries(
    Object.entries(raw.properties).map(([name, s]) => {
      const d = s.description as RawText | undefined;
      if (d === undefined || typeof d === 'string') return [name, s];
      return [name, { ...s, description: d.en, 'x-description-zh': d.zh }];
    }),
  );
  return input;
}

/** The declared `data` fields; a response_example that does not match them is a config error. */
function responseOf(file: string, raw: RawFile, op: RawOperation, at: string): ResponseFields | null {
  if (!op.response) return null;
  const bad = op.response_example ? exampleMismatch(op.response, op.response_example) : null;
  if (bad) throw new ConfigError(`${where(file, raw, `${at}/response_example`)}: does not match response: ${bad}`);
  return op.response;
}

function canaryOf(file: string, raw: RawFile, op: RawOperation, at: string): CanaryConfig | null {
  if (!op.canary) return null;
  try {
    return parseCanary(op.canary, Object.keys(op.options ?? {}));
  } catch (err) {
    const [pointer, ...rest] = (err as Error).message.split(': ');
    throw new ConfigError(`${where(file, raw, `${at}/canary${pointer}`)}: ${rest.join(': ')}`);
  }
}

/** The operation's upstreams (enabled ones), every expression compiled once here to fail the load early. */
function upstreamsOf(file: string, raw: RawFile, op: RawOperation, at: string, env: NodeJS.ProcessEnv) {
  if (!op.upstreams) return null;
  if (!op.response) throw new ConfigError(`${where(file, raw, at)}: an operation with upstreams needs response:`);
  const seen = new Set<string>();
  const list: UpstreamConfig[] = [];
  op.upstreams.forEach((u, j) => {
    const p = `${at}/upstreams/${j}`;
    if (seen.has(u.id)) throw new ConfigError(`${where(file, raw, `${p}/id`)}: duplicate upstream id "${u.id}"`);
    seen.add(u.id);
    try {
      checkUpstreamExpressions(u, p);
      if (u.enabled !== false) list.push(toUpstream(u, p, env));
    } catch (err) {
      if (err instanceof UpstreamConfigError) throw new ConfigError(`${where(file, raw, err.pointer)}: ${err.message}`);
      throw err;
    }
  });
  return list;
}

/** Plugin first, upstreams after it: `fallback_when` needs both, and a plugin other than http with upstreams needs it. */
function fallbackOf(file: string, raw: RawFile, op: RawOperation, at: string): boolean {
  const both = Boolean(op.plugin && op.plugin !== 'http' && op.upstreams);
  if (op.fallback_when && !both)
    throw new ConfigError(`${where(file, raw, `${at}/fallback_when`)}: needs a plugin (not http) and upstreams:`);
  if (both && !op.fallback_when)
    throw new ConfigError(
      `${where(file, raw, `${at}/upstreams`)}: with plugin "${op.plugin}" the upstreams are its fallback: say when with fallback_when:`,
    );
  return both;
}

/** `requires:` and, for upstreams, at least one upstream whose ${ENV} secrets are all set. */
function availabilityWith(base: Availability, upstreams: UpstreamConfig[] | null, fallback: boolean): Availability {
  // A plugin with upstreams as its fallback answers without them.
  if (!upstreams || !base.available || fallback) return base;
  if (upstreams.some((u) => u.missing.length === 0)) return base;
  return { available: false, missing: upstreams.length ? upstreams.map((u) => u.missing) : [['an enabled upstream']] };
}

function toOperation(file: string, raw: RawFile, op: RawOperation, i: number, env: NodeJS.ProcessEnv): OperationConfig {
  const at = `/operations/${i}`;
  const missing = new Set<string>();
  const options = substituteEnv(op.options ?? {}, env, missing) as Record<string, unknown>;
  const input = inputOf(op.input);
  const text = textOf(op.name, op.description, op.code);
  if (!op.plugin && !op.upstreams) throw new ConfigError(`${where(file, raw, at)}: needs plugin: or upstreams:`);
  const upstreams = upstreamsOf(file, raw, op, at, env);
  const fallback = fallbackOf(file, raw, op, at);
  for (const name of ['charge_when', 'fallback_when'] as const) {
    const source = op[name];
    if (!source) continue;
    try {
      checkExpression(source, `${at}/${name}`);
    } catch (err) {
      throw new ConfigError(`${where(file, raw, `${at}/${name}`)}: ${(err as Error).message}`);
    }
  }
  return {
    code: op.code,
    name: text.en.name,
    description: text.en.description,
    text,
    availability: availabilityWith(availabilityOf(op.requires, op.options ?? {}, options), upstreams, fallback),
    plugin: op.plugin ?? 'http',
    upstreams,
    chargeWhen: op.charge_when ?? null,
    fallbackWhen: op.fallback_when ?? null,
    priceMicro: money(file, raw, `${at}/price_per_call`, op.price_per_call),
    cacheTtl: op.cache_ttl ?? 0,
    timeoutMs: op.timeout_ms ?? DEFAULT_TIMEOUT_MS,
    enabled: op.enabled ?? true,
    input,
    example: op.example ?? null,
    responseExample: op.response_example ?? null,
    response: responseOf(file, raw, op, at),
    options,
    routes: (op.routes ?? []).map((r, j) => parseRoute(file, raw, `${at}/routes/${j}`, r)),
    canary: canaryOf(file, raw, op, at),
  };
}

export function parseOperationsConfig(
  file: string,
  text: string,
  env: NodeJS.ProcessEnv = process.env,
): OperationsConfig {
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (err) {
    throw new ConfigError(`${basename(file)}: not valid YAML: ${(err as Error).message}`);
  }
  if (!validateMeta(raw)) {
    const lines = (validateMeta.errors ?? []).slice(0, 5).map((e) => {
      const extra =
        e.keyword === 'additionalProperties'
          ? ` (${String((e.params as { additionalProperty: string }).additionalProperty)})`
          : '';
      return `${where(file, raw, e.instancePath)}: ${e.message ?? 'invalid'}${extra}`;
    });
    throw new ConfigError(lines.join('\n'));
  }
  const doc = raw as RawFile;
  const seen = new Map<string, number>();
  doc.operations.forEach((op, i) => {
    if (seen.has(op.code))
      throw new ConfigError(
        `${where(file, raw, `/operations/${i}/code`)}: duplicate code (first at /operations/${seen.get(op.code)})`,
      );
    seen.set(op.code, i);
  });
  const operations = doc.operations.map((op, i) => toOperation(file, doc, op, i, env));
  const plans = (doc.plans ?? []).map((p, i) => {
    p.codes.forEach((c, j) => {
      if (!seen.has(c))
        throw new ConfigError(`${where(file, raw, `/plans/${i}/codes/${j}`)}: unknown operation code "${c}"`);
    });
    const text = textOf(p.name, p.description, p.id);
    return {
      id: p.id,
      name: text.en.name,
      description: text.en.description,
      text,
      priceMicro: money(file, raw, `/plans/${i}/price`, p.price),
      durationDays: p.duration_days,
      grantMicro: money(file, raw, `/plans/${i}/grant_tokens`, p.grant_tokens ?? 0),
      quota: {
        callsPerDay: p.quota.calls_per_day,
        concurrency: p.quota.concurrency ?? null,
        cacheFree: p.quota.cache_free ?? false,
      },
      codes: p.codes,
    };
  });
  const packages = (doc.packages ?? []).map((p, i) => {
    const text = textOf(p.name, p.description, p.id);
    return {
      id: p.id,
      name: text.en.name,
      description: text.en.description,
      text,
      priceMicro: money(file, raw, `/packages/${i}/price`, p.price),
      tokensMicro: money(file, raw, `/packages/${i}/tokens`, p.tokens),
    };
  });
  const signup = { trialMicro: money(file, raw, '/signup/trial_tokens', doc.signup?.trial_tokens ?? 0) };
  const manual = doc.manual_payment?.instructions;
  const manualInstructions =
    manual === undefined ? null : typeof manual === 'string' ? { zh: manual, en: manual } : manual;
  return { file, operations, plans, packages, signup, manualInstructions };
}

export function loadOperationsConfig(file: string, env: NodeJS.ProcessEnv = process.env): OperationsConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`${file}: cannot read: ${(err as Error).message}`);
  }
  return parseOperationsConfig(file, text, env);
}
