// The /api operations in the OpenAPI document: inputs exactly as Ajv checks them (core/registry/input-validator.ts
// compiles the same operations.yaml schema), the `data` of a success from the operation's `response:` fields, and
// 200 examples that are whole envelopes. Route aliases get their own operationIds, and a path parameter that
// settles a one-of rule (/api/video/{id}) drops the other branch's fields, which would always be refused there.

import type { InputSchema } from '../../config/operations-config.js';
import { objectSchema } from '../../config/response-fields.js';
import { toToken } from '../../kernel/money.js';
import type { Operation } from '../../registry/registry.js';
import { API_ERRORS, errorResponses } from './error-schemas.js';

/** Shown first on an operation that is not configured here (x-available: false): a client reads why calls fail. */
const UNAVAILABLE_NOTE =
  '**Not available on this server** (not configured): calls answer 503 OPERATION_UNAVAILABLE and are never charged.\n\n';

type Json = Record<string, unknown>;

export function toOpenApiPath(path: string): { path: string; params: string[] } {
  const params: string[] = [];
  const out = path.replace(/:([A-Za-z_$][\w$]*)/g, (_m, name: string) => {
    params.push(name);
    return `{${name}}`;
  });
  return { path: out, params };
}

/** Components name of an operation's data schema: kuaid_detect -> KuaidDetectData. */
export function dataSchemaName(code: string): string {
  return `${code
    .split('_')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('')}Data`;
}

/** components.schemas entries for every operation that declares its response. */
export function dataSchemas(ops: Operation[]): Json {
  return Object.fromEntries(
    ops.filter((op) => op.response).map((op) => [dataSchemaName(op.code), objectSchema(op.response ?? {}, 'both')]),
  );
}

/** Unique per path and method (two aliases of one operation must not share an id): douyin_get_api_video_id. */
function aliasOperationId(op: Operation, method: string, path: string): string {
  return `${op.code}_${method.toLowerCase()}${path.replace(/[^A-Za-z0-9]+/g, '_').replace(/_+$/, '')}`;
}

/** Keywords beyond plain properties: a GET then sends its query as one form-exploded object so the rule survives. */
const RULE_KEYWORDS = [
  'oneOf',
  'anyOf',
  'allOf',
  'not',
  'if',
  'dependentRequired',
  'dependentSchemas',
  'minProperties',
  'maxProperties',
];

/** The input left for the query or body once the path parameters are taken. */
function inputBesidesPath(input: InputSchema, pathParams: string[]): InputSchema {
  const props = { ...(input.properties ?? {}) };
  const out: InputSchema = { ...input };
  const branches = input.oneOf as Array<{ required?: string[] }> | undefined;
  if (pathParams.length && branches?.every((b) => Array.isArray(b.required))) {
    // The path parameter picks its branch: the other branches' fields could only ever break the one-of.
    const others = branches.filter((b) => !b.required?.some((r) => pathParams.includes(r)));
    if (others.length < branches.length) {
      for (const b of others) for (const r of b.required ?? []) delete props[r];
      delete out.oneOf;
    }
  }
  for (const p of pathParams) delete props[p];
  out.properties = props;
  const required = (input.required ?? []).filter((r) => r in props);
  if (required.length) out.required = required;
  else delete out.required;
  return out;
}

function envelopeExample(op: Operation): Json | undefined {
  if (!op.responseExample) return undefined;
  const deducted = toToken(op.priceMicro);
  return {
    success: true,
    data: op.responseExample,
    deducted,
    remaining: 9.99,
    cached: false,
    request_id: 'req_1M86R6AQKMtkdYmFmeE6d',
  };
}

export function operationObject(
  op: Operation,
  method: 'GET' | 'POST',
  pathParams: string[],
  aliasPath: string | null,
): Json {
  const props = op.input.properties ?? {};
  const rest = inputBesidesPath(op.input, pathParams);
  const parameters: Json[] = pathParams.map((name) => ({
    name,
    in: 'path',
    required: true,
    schema: props[name] ?? { type: 'string' },
  }));
  let requestBody: Json | undefined;
  const hasRules = RULE_KEYWORDS.some((k) => k in rest);
  if (method === 'GET' && hasRules) {
    parameters.push({
      name: 'input',
      in: 'query',
      style: 'form',
      explode: true,
      required: true,
      description: 'The input as query parameters (one per property)',
      schema: rest,
    });
  } else if (method === 'GET') {
    const required = new Set(rest.required ?? []);
    for (const [name, schema] of Object.entries(rest.properties ?? {})) {
      parameters.push({
        name,
        in: 'query',
        required: required.has(name),
        ...(schema.description ? { description: schema.description } : {}),
        ...(schema['x-description-zh'] ? { 'x-description-zh': schema['x-description-zh'] } : {}),
        schema,
      });
    }
  } else {
    const needed = (rest.required?.length ?? 0) > 0 || hasRules;
    const example = op.example && !aliasPath ? { example: op.example } : {};
    requestBody = {
      required: needed,
      content: {
        'application/json': { schema: rest, ...example },
        'application/x-www-form-urlencoded': { schema: rest },
      },
    };
  }
  const data = op.response
    ? { $ref: `#/components/schemas/${dataSchemaName(op.code)}` }
    : { description: 'Operation-specific; not declared in operations.yaml' };
  const example = envelopeExample(op);
  return {
    operationId: aliasPath ? aliasOperationId(op, method, aliasPath) : `${op.code}_${method.toLowerCase()}`,
    summary: op.name,
    description: `${op.availability.available ? '' : UNAVAILABLE_NOTE}${op.description}\n\n${op.text.zh.name}：${op.text.zh.description}\n\nPrice: ${toToken(op.priceMicro)} TOKEN per successful call. Cache TTL: ${op.cacheTtl} s.`,
    tags: ['operations'],
    'x-operation-code': op.code,
    'x-price-token': toToken(op.priceMicro),
    'x-available': op.availability.available,
    parameters,
    ...(requestBody ? { requestBody } : {}),
    responses: {
      200: {
        description:
          "Success; `deducted` is what this call cost, `data` is described by the operation's response schema.",
        content: {
          'application/json': {
            schema: { allOf: [{ $ref: '#/components/schemas/Success' }, { type: 'object', properties: { data } }] },
            ...(example ? { example } : {}),
          },
        },
      },
      // A GET's query counts toward the header limit (431); a POST body may have the wrong type (415).
      ...errorResponses(
        method === 'GET'
          ? [...API_ERRORS, 'HEADERS_TOO_LARGE']
          : [...API_ERRORS, 'UNSUPPORTED_MEDIA_TYPE', 'HEADERS_TOO_LARGE'],
      ),
    },
  };
}
