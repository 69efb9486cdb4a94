// Judging one canary answer: an error envelope is classified (core/sandbox/failure-class.ts); a success must match
// the operation's declared `response:` fields and make every JSONata assertion of its sample truthy. A failed
// check is `shape_changed` and names the field: Ajv's instance path for the schema, and for an assertion the
// first path it reads that the answer lacks (else the first path it reads), so the alert says "author.name",
// not "assertion 2 failed".
import { Ajv, type ValidateFunction } from 'ajv';
import jsonata from 'jsonata';
import type { CanarySample } from '../config/canary-config.js';
import { objectSchema, type ResponseFields } from '../config/response-fields.js';
import { classifyFailure, type FailureClass } from '../sandbox/failure-class.js';

export interface Verdict {
  ok: boolean;
  class: FailureClass | null;
  /** The field a shape check found missing or of another type (dotted path), else null. */
  field: string | null;
  /** One line for the operator: the error code and message, or what the check found. */
  detail: string;
}

const ajv = new Ajv({ allErrors: false, strict: false, validateFormats: false });
const compiled = new WeakMap<ResponseFields, ValidateFunction>();

function schemaCheck(fields: ResponseFields, data: unknown): { field: string; detail: string } | null {
  let validate = compiled.get(fields);
  if (!validate) compiled.set(fields, (validate = ajv.compile(objectSchema(fields, null))));
  if (validate(data)) return null;
  const e = validate.errors?.[0];
  if (!e) return { field: '', detail: 'the answer does not match the response schema' };
  let path = e.instancePath.replace(/^\//, '').replace(/\//g, '.');
  if (e.keyword === 'required') {
    const missing = (e.params as { missingProperty: string }).missingProperty;
    path = path ? `${path}.${missing}` : missing;
    return { field: path, detail: `the answer has no ${path} (response schema)` };
  }
  if (e.keyword === 'additionalProperties') {
    const extra = (e.params as { additionalProperty: string }).additionalProperty;
    path = path ? `${path}.${extra}` : extra;
    return { field: path, detail: `the answer has an undeclared field ${path} (response schema)` };
  }
  return { field: path, detail: `${path || 'the answer'} ${e.message ?? 'is invalid'} (response schema)` };
}

interface AstNode {
  type: string;
  value?: unknown;
  steps?: AstNode[];
  [k: string]: unknown;
}

/** Dotted paths of plain field names an expression reads, in source order. */
function pathsOf(node: unknown, out: string[] = []): string[] {
  if (!node || typeof node !== 'object') return out;
  const n = node as AstNode;
  if (n.type === 'path' && Array.isArray(n.steps) && n.steps.every((s) => s.type === 'name')) {
    out.push(n.steps.map((s) => String(s.value)).join('.'));
    return out;
  }
  for (const v of Object.values(n)) {
    if (Array.isArray(v)) for (const x of v) pathsOf(x, out);
    else if (v && typeof v === 'object') pathsOf(v, out);
  }
  return out;
}

function lookUp(data: unknown, path: string): unknown {
  let v = data;
  for (const k of path.split('.')) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[k];
  }
  return v;
}

async function assertionCheck(expr: string, data: unknown): Promise<{ field: string; detail: string } | null> {
  const compiledExpr = jsonata(expr);
  let value: unknown;
  try {
    value = await compiledExpr.evaluate(data);
  } catch (err) {
    value = undefined;
    const paths = pathsOf(compiledExpr.ast());
    return { field: paths[0] ?? '', detail: `assertion ${expr} failed: ${(err as Error).message}` };
  }
  if (value !== undefined && value !== null && value !== false && value !== '' && value !== 0) return null;
  const paths = pathsOf(compiledExpr.ast());
  const missing = paths.find((p) => lookUp(data, p) === undefined || lookUp(data, p) === null);
  return { field: missing ?? paths[0] ?? '', detail: `assertion ${expr} is not true` };
}

// Plugins name what they did not find: "__INITIAL_STATE__ has no note.noteDetailMap (changed shape)",
// "pages[].cid or bvid missing (changed shape)", "share page has no videoInfoRes (page shape changed)".
const NAMED_FIELD = /\bhas no ([A-Za-z_$][\w$.[\]]*)|([A-Za-z_$][\w$.[\]]*)(?: or [\w$.[\]]+)? (?:is )?missing/;

/** The upstream field a plugin's shape failure names, if it names one. */
export function fieldInMessage(message: string): string | null {
  const m = NAMED_FIELD.exec(message);
  return m ? (m[1] ?? m[2] ?? null) : null;
}

export interface Envelope {
  success?: boolean;
  data?: unknown;
  error?: { code?: string; message?: string };
}

/** The verdict on one canary answer (its HTTP status and parsed envelope). */
export async function judge(
  status: number,
  env: Envelope,
  sample: CanarySample,
  fields: ResponseFields | null,
  schema: boolean,
): Promise<Verdict> {
  if (status !== 200 || !env.success) {
    const code = env.error?.code ?? `HTTP_${status}`;
    const message = env.error?.message ?? '';
    const cls = classifyFailure(code, message) ?? 'upstream_error';
    const field = cls === 'shape_changed' ? fieldInMessage(message) : null;
    return { ok: false, class: cls, field, detail: `${code}: ${message}`.slice(0, 500) };
  }
  const shape = schema && fields ? schemaCheck(fields, env.data) : null;
  const bad = shape ?? (await firstFailed(sample.assert, env.data));
  if (bad) return { ok: false, class: 'shape_changed', field: bad.field || null, detail: bad.detail.slice(0, 500) };
  return { ok: true, class: null, field: null, detail: 'ok' };
}

async function firstFailed(asserts: string[], data: unknown): Promise<{ field: string; detail: string } | null> {
  for (const expr of asserts) {
    const bad = await assertionCheck(expr, data);
    if (bad) return bad;
  }
  return null;
}
