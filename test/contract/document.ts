// The served OpenAPI document as the contract test reads it: its operations (path, method, parameters, body,
// responses, links), a response checker (Ajv 2020-12, the dialect of OpenAPI 3.1, with the document's
// components for $ref) and the drawers of valid and invalid requests for an operation.

import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { invalidVariants, type Schema, valid } from './schema-arbitrary.js';

export interface Operation {
  id: string;
  method: string;
  /** The document's path, e.g. /console/api/keys/{id}. */
  path: string;
  op: Schema;
}

export interface Request {
  path: string;
  query: Record<string, string>;
  body?: unknown;
  /** Which part is broken, for an invalid request. */
  why?: string;
  /** The broken part is a path parameter: 404 (no such resource) is as right as 400. */
  pathBroken?: boolean;
}

export interface RequestVariant {
  why: string;
  arb: fc.Arbitrary<Request>;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

export function operationsOf(doc: Schema): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Schema>))
    for (const method of METHODS)
      if (item[method])
        out.push({ id: item[method].operationId, method: method.toUpperCase(), path, op: item[method] });
  return out;
}

/** Response validation against the document, $refs to #/components resolved within it. */
export function responseChecker(doc: Schema): (schema: Schema, body: unknown) => string | null {
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: false });
  ajv.addSchema({ $id: 'doc', components: doc.components });
  const rebase = (s: unknown): unknown =>
    Array.isArray(s)
      ? s.map(rebase)
      : s && typeof s === 'object'
        ? Object.fromEntries(
            Object.entries(s).map(([k, v]) => [k, k === '$ref' && typeof v === 'string' ? `doc${v}` : rebase(v)]),
          )
        : s;
  const cache = new Map<Schema, ValidateFunction>();
  return (schema, body) => {
    let v = cache.get(schema);
    if (!v) {
      v = ajv.compile(rebase(schema) as Schema);
      cache.set(schema, v);
    }
    if (v(body)) return null;
    return (v.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`).join('; ');
  };
}

/** Values seen in earlier answers, by field name: ids to put in paths, plan ids to order, codes to redeem. */
export type Pool = Map<string, Set<unknown>>;

export function harvest(pool: Pool, value: unknown, key = ''): void {
  if (Array.isArray(value)) for (const v of value.slice(0, 20)) harvest(pool, v, key);
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) harvest(pool, v, k === 'id' && key ? `${key}.id` : k);
  else if ((typeof value === 'number' && Number.isInteger(value) && value > 0) || typeof value === 'string') {
    if (typeof value === 'string' && value.length > 100) return;
    const name = key.replace(/^.*\./, '');
    for (const k of new Set([key, name])) {
      let set = pool.get(k);
      if (!set) pool.set(k, (set = new Set()));
      if (set.size < 50) set.add(value);
    }
  }
}

/** A schema's valid values, sometimes one seen before under the same name (when it fits the schema). */
function validFrom(pool: Pool, name: string, s: Schema, fits: (v: unknown) => boolean): fc.Arbitrary<unknown> {
  const seen = [...(pool.get(name) ?? [])].filter(fits);
  return seen.length ? fc.oneof(valid(s), fc.constantFrom(...seen)) : valid(s);
}

const toQuery = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));

/** Path parameters: a seen id for `id`, `delivery` and `batch` (from `batch_id`) when there is one. */
const POOL_NAME: Record<string, string> = { batch: 'batch_id' };

function params(o: Operation, where: 'path' | 'query'): Schema[] {
  return ((o.op.parameters ?? []) as Schema[]).filter((p) => p.in === where);
}

export function bodySchema(o: Operation): Schema | undefined {
  return o.op.requestBody?.content?.['application/json']?.schema;
}

function fillPath(path: string, values: Record<string, unknown>): string {
  return path.replace(/\{(\w+)\}/g, (_, n) => encodeURIComponent(String(values[n])));
}

/** Valid requests for `o`. `fits(schema, v)` says whether a pooled value is valid for a schema. */
export function validRequests(
  o: Operation,
  pool: Pool,
  fits: (s: Schema, v: unknown) => boolean,
): fc.Arbitrary<Request> {
  const pathArbs: Record<string, fc.Arbitrary<unknown>> = {};
  for (const p of params(o, 'path'))
    pathArbs[p.name] = validFrom(pool, POOL_NAME[p.name] ?? p.name, p.schema, (v) => fits(p.schema, v));
  const queryArbs: Record<string, fc.Arbitrary<unknown>> = {};
  const requiredQuery: string[] = [];
  for (const p of params(o, 'query')) {
    queryArbs[p.name] = validFrom(pool, p.name, p.schema, (v) => fits(p.schema, v));
    if (p.required) requiredQuery.push(p.name);
  }
  const body = bodySchema(o);
  let bodyArb: fc.Arbitrary<unknown> = fc.constant(undefined);
  if (body?.type === 'object') {
    const props: Record<string, fc.Arbitrary<unknown>> = {};
    for (const [k, s] of Object.entries((body.properties ?? {}) as Record<string, Schema>))
      props[k] = validFrom(pool, k, s, (v) => fits(s, v));
    bodyArb = fc.record(props, { requiredKeys: body.required ?? [] });
  } else if (body) bodyArb = valid(body);
  return fc
    .record({
      path: fc.record(pathArbs),
      query: fc.record(queryArbs, { requiredKeys: requiredQuery }),
      body: bodyArb,
    })
    .map(({ path, query, body }) => ({
      path: fillPath(o.path, path),
      query: Object.fromEntries(Object.entries(query).map(([k, v]) => [k, toQuery(v)])),
      body,
    }));
}

/** Each way to break one part of a request (the rest valid), as a named drawer. */
export function invalidRequests(o: Operation, validReq: fc.Arbitrary<Request>): RequestVariant[] {
  const out: RequestVariant[] = [];
  for (const p of params(o, 'path'))
    for (const v of invalidVariants(p.schema, true))
      out.push({
        why: `path ${p.name}: ${v.why}`,
        arb: fc.tuple(validReq, v.arb).map(([r, bad]) => ({
          ...r,
          path: fillPath(o.path.replace(`{${p.name}}`, encodeURIComponent(toQuery(bad))), pathValues(o, r)),
          pathBroken: true,
        })),
      });
  for (const p of params(o, 'query'))
    for (const v of invalidVariants(p.schema, true))
      out.push({
        why: `?${p.name}: ${v.why}`,
        arb: fc.tuple(validReq, v.arb).map(([r, bad]) => ({ ...r, query: { ...r.query, [p.name]: toQuery(bad) } })),
      });
  const body = bodySchema(o);
  if (body)
    for (const v of invalidVariants(body))
      out.push({ why: `body ${v.why}`, arb: fc.tuple(validReq, v.arb).map(([r, bad]) => ({ ...r, body: bad })) });
  return out.map((v) => ({ ...v, arb: v.arb.map((r) => ({ ...r, why: v.why })) }));
}

/** The path values of a filled request, read back against the template. */
function pathValues(o: Operation, r: Request): Record<string, string> {
  const names = [...o.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
  const re = new RegExp(`^${o.path.replace(/[.]/g, '\\.').replace(/\{\w+\}/g, '([^/]+?)')}$`);
  const m = r.path.match(re);
  return Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(m?.[i + 1] ?? '')]));
}
