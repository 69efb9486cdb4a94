// An upstream spec compiled: every JSONata expression and {{ }} template part parsed once per spec key (a config
// version) and kept in module scope, since the isolate's context lives across calls. Never per call.
import jsonata from 'jsonata';
import { type Direct, direct, MISS } from './fast-path.js';

/** A compiled JSONata expression; its plain cases answered directly, without JSONata's evaluator (fast-path.ts). */
export class Expression {
  private readonly jsonata: jsonata.Expression;
  private readonly direct: Direct | null;

  constructor(source: string) {
    this.jsonata = jsonata(source);
    this.direct = direct(this.jsonata.ast() as Parameters<typeof direct>[0]);
  }

  /** JSONata's value of the expression (a promise when JSONata itself had to evaluate it). */
  evaluate(ctx: unknown, bindings: Record<string, unknown>): unknown {
    if (this.direct) {
      const v = this.direct(ctx);
      if (v !== MISS) return v;
    }
    return this.jsonata.evaluate(ctx, bindings);
  }

  /**
   * The value when the direct form knows it, else MISS. Pure (no bindings, no host calls, nothing started), so a
   * caller may give up on MISS and evaluate everything again through `evaluate`.
   */
  now(ctx: unknown): unknown {
    return this.direct ? this.direct(ctx) : MISS;
  }
}

/** Literal text (with ${NAME} secrets already filled in) and compiled {{ }} parts; `whole` when it is one part. */
export class Template {
  constructor(
    readonly parts: Array<string | Expression>,
    readonly whole: Expression | null,
  ) {}
}

export type JsonTemplate = Template | JsonTemplate[] | { [k: string]: JsonTemplate } | number | boolean | null;

export interface ErrorRule {
  when: Expression;
  code: string;
  message: { zh: string; en: string } | null;
  next: boolean;
  disable_s: number | null;
}

export interface UpstreamSpec {
  key: string;
  id: string;
  request: {
    method: string;
    url: string;
    let?: Record<string, string>;
    query?: Record<string, string>;
    headers?: Record<string, string>;
    form?: Record<string, string>;
    json?: unknown;
  };
  success: string | null;
  result: string;
  errors: Array<{
    when: string;
    code: string;
    message: { zh: string; en: string } | null;
    next: boolean;
    disable_s: number | null;
  }>;
  env: Record<string, string>;
}

export interface Compiled {
  id: string;
  method: string;
  url: Template;
  lets: Array<[string, Expression]>;
  query: Array<[string, Template]>;
  headers: Array<[string, Template]>;
  form: Array<[string, Template]> | null;
  json: JsonTemplate | undefined;
  success: Expression;
  result: Expression;
  errors: ErrorRule[];
  env: Record<string, string>;
}

const SECRET = /\$\{([A-Z_][A-Z0-9_]*)\}/g;

/** Same split as core/config/upstream-expressions.ts templateParts (checked there at load). */
export function compileTemplate(text: string, env: Record<string, string>): Template {
  const parts: Array<string | Expression> = [];
  const literal = (s: string): string => s.replace(SECRET, (_m, name: string) => env[name] ?? '');
  let rest = text;
  for (;;) {
    const open = rest.indexOf('{{');
    if (open < 0) break;
    const close = rest.indexOf('}}', open + 2);
    if (close < 0) break;
    if (open > 0) parts.push(literal(rest.slice(0, open)));
    parts.push(new Expression(rest.slice(open + 2, close).trim()));
    rest = rest.slice(close + 2);
  }
  if (rest) parts.push(literal(rest));
  return new Template(parts, parts.length === 1 && typeof parts[0] !== 'string' ? parts[0] : null);
}

function compileJson(v: unknown, env: Record<string, string>): JsonTemplate {
  if (typeof v === 'string') return compileTemplate(v, env);
  if (Array.isArray(v)) return v.map((x) => compileJson(x, env));
  if (v && typeof v === 'object') {
    const out: { [k: string]: JsonTemplate } = {};
    for (const [k, x] of Object.entries(v)) out[k] = compileJson(x, env);
    return out;
  }
  return v as number | boolean | null;
}

const pairs = (m: Record<string, string> | undefined, env: Record<string, string>): Array<[string, Template]> =>
  Object.entries(m ?? {}).map(([k, t]) => [k, compileTemplate(t, env)]);

const DEFAULT_SUCCESS = 'status >= 200 and status < 300';

export function compileSpec(spec: UpstreamSpec): Compiled {
  const r = spec.request;
  const env = spec.env;
  return {
    id: spec.id,
    method: r.method,
    url: compileTemplate(r.url, env),
    lets: Object.entries(r.let ?? {}).map(([k, src]) => [k, new Expression(src)]),
    query: pairs(r.query, env),
    headers: pairs(r.headers, env),
    form: r.form ? pairs(r.form, env) : null,
    json: r.json === undefined ? undefined : compileJson(r.json, env),
    success: new Expression(spec.success ?? DEFAULT_SUCCESS),
    result: new Expression(spec.result),
    errors: spec.errors.map((e) => ({ ...e, when: new Expression(e.when) })),
    env,
  };
}

const compiled = new Map<string, Compiled>();
/** A reloaded config brings new keys; the old ones are dropped past this many. */
const MAX_SPECS = 256;

export function compiledFor(spec: UpstreamSpec): Compiled {
  let c = compiled.get(spec.key);
  if (!c) {
    if (compiled.size >= MAX_SPECS) compiled.clear();
    c = compileSpec(spec);
    compiled.set(spec.key, c);
  }
  return c;
}
