// GET /openapi.json: an OpenAPI 3.1 document built from the live operations.yaml (every /api operation with
// its input schema, route aliases, the envelope and the error catalogue) plus the console API. Rebuilt when
// the registry version changes, so a hot reload shows up without a restart.
import type Router from '@koa/router';
import type { Services } from '../services.js';
import type { Operation, Registry } from '../registry/registry.js';
import { ERROR_CATALOGUE, type ErrorCode } from '../http/errors.js';
import { toToken } from '../kernel/money.js';
import { CONSOLE_ENDPOINTS, type ConsoleEndpoint } from './api/console-endpoints.js';
import { BALANCE_PATH } from '../pipeline/balance-by-key.js';
import { BALANCE_OPENAPI } from './balance-openapi.js';

type Json = Record<string, unknown>;

const API_ERRORS: ErrorCode[] = [
  'INVALID_INPUT', 'MISSING_API_KEY', 'INVALID_API_KEY', 'INSUFFICIENT_BALANCE', 'KEY_DISABLED', 'KEY_EXPIRED',
  'IP_NOT_ALLOWED', 'OPERATION_NOT_ALLOWED', 'UNKNOWN_OPERATION', 'NOT_FOUND', 'IDEMPOTENCY_CONFLICT',
  'PAYLOAD_TOO_LARGE', 'UNSUPPORTED', 'RATE_LIMITED', 'CONCURRENCY_LIMITED', 'UPSTREAM_FAILED', 'UNAVAILABLE',
  'UPSTREAM_TIMEOUT', 'INTERNAL',
];
const CONSOLE_ERRORS: ErrorCode[] = [
  'INVALID_INPUT', 'UNAUTHORIZED', 'FORBIDDEN', 'ACCOUNT_DISABLED', 'RESOURCE_NOT_FOUND', 'CONFLICT', 'TOO_MANY_ATTEMPTS', 'INTERNAL',
];

/** Error responses grouped by status, each listing its catalogue codes. */
function errorResponses(codes: ErrorCode[]): Json {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const c of codes) byStatus.set(ERROR_CATALOGUE[c].status, [...(byStatus.get(ERROR_CATALOGUE[c].status) ?? []), c]);
  const out: Json = {};
  for (const [status, list] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    out[String(status)] = {
      description: list.map((c) => `${c}: ${ERROR_CATALOGUE[c].message}`).join(' | '),
      content: {
        'application/json': {
          schema: {
            allOf: [
              { $ref: '#/components/schemas/Failure' },
              { type: 'object', properties: { error: { type: 'object', properties: { code: { enum: list } } } } },
            ],
          },
        },
      },
    };
  }
  return out;
}

function toOpenApiPath(path: string): { path: string; params: string[] } {
  const params: string[] = [];
  const out = path.replace(/:([A-Za-z_$][\w$]*)/g, (_m, name: string) => {
    params.push(name);
    return `{${name}}`;
  });
  return { path: out, params };
}

/** Unique per path and method (two aliases of one operation must not share an id): douyin_get_api_video_id. */
function aliasOperationId(op: Operation, method: string, path: string): string {
  return `${op.code}_${method.toLowerCase()}${path.replace(/[^A-Za-z0-9]+/g, '_').replace(/_+$/, '')}`;
}

function operationObject(op: Operation, method: 'GET' | 'POST', pathParams: string[], aliasPath: string | null): Json {
  const props = op.input.properties ?? {};
  const required = new Set(op.input.required ?? []);
  const parameters: Json[] = pathParams.map((name) => ({ name, in: 'path', required: true, schema: props[name] ?? { type: 'string' } }));
  const rest = Object.keys(props).filter((p) => !pathParams.includes(p));
  let requestBody: Json | undefined;
  if (method === 'GET') {
    for (const name of rest) {
      const schema = props[name];
      parameters.push({ name, in: 'query', required: required.has(name), description: schema.description, schema });
    }
  } else {
    const body: Json = { ...op.input, properties: Object.fromEntries(rest.map((p) => [p, props[p]])) };
    body.required = (op.input.required ?? []).filter((r) => !pathParams.includes(r));
    if ((body.required as string[]).length === 0) delete body.required;
    requestBody = {
      required: (body.required as string[] | undefined) !== undefined,
      content: {
        'application/json': { schema: body, ...(op.example ? { example: op.example } : {}) },
        'application/x-www-form-urlencoded': { schema: body },
      },
    };
  }
  const success: Json = {
    allOf: [{ $ref: '#/components/schemas/Success' }, { type: 'object', properties: { data: { type: 'object' } } }],
  };
  return {
    operationId: aliasPath ? aliasOperationId(op, method, aliasPath) : `${op.code}_${method.toLowerCase()}`,
    summary: op.name,
    description: `${op.description}\n\nPrice: ${toToken(op.priceMicro)} TOKEN per successful call. Cache TTL: ${op.cacheTtl} s.`,
    tags: ['operations'],
    'x-operation-code': op.code,
    'x-price-token': toToken(op.priceMicro),
    parameters,
    ...(requestBody ? { requestBody } : {}),
    responses: {
      200: {
        description: 'Success; `deducted` is what this call cost.',
        content: { 'application/json': { schema: success, ...(op.responseExample ? { example: op.responseExample } : {}) } },
      },
      // A GET's query counts toward the header limit (431); a POST body may have the wrong type (415).
      ...errorResponses(method === 'GET' ? [...API_ERRORS, 'HEADERS_TOO_LARGE'] : [...API_ERRORS, 'UNSUPPORTED_MEDIA_TYPE', 'HEADERS_TOO_LARGE']),
    },
  };
}

function consoleOperation(e: ConsoleEndpoint): Json {
  const { params } = toOpenApiPath(e.path);
  const parameters: Json[] = [
    ...params.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
    ...(e.query ?? []).map((q) => ({ name: q.name, in: 'query', required: false, description: q.description, schema: q.schema ?? { type: 'string' } })),
  ];
  return {
    operationId: e.id,
    summary: e.summary,
    tags: [e.auth === 'admin' ? 'admin' : 'console'],
    security: e.auth === 'none' ? [] : [{ bearer: [] }],
    parameters,
    ...(e.body ? { requestBody: { required: true, content: { 'application/json': { schema: e.body } } } } : {}),
    responses: {
      [String(e.status ?? 200)]: {
        description: 'Success',
        content: { [e.produces ?? 'application/json']: { schema: e.produces === 'text/csv' ? { type: 'string' } : { type: 'object' } } },
      },
      ...errorResponses(e.body ? [...CONSOLE_ERRORS, 'UNSUPPORTED_MEDIA_TYPE'] : CONSOLE_ERRORS),
    },
  };
}

export function buildOpenApi(registry: Registry, version: string): Json {
  const paths: Record<string, Json> = {};
  const add = (path: string, method: string, op: Json): void => {
    paths[path] = { ...(paths[path] ?? {}), [method.toLowerCase()]: op };
  };
  for (const op of registry.list()) {
    add(`/api/${op.code}`, 'GET', operationObject(op, 'GET', [], null));
    add(`/api/${op.code}`, 'POST', operationObject(op, 'POST', [], null));
    for (const r of op.routes) {
      const { path, params } = toOpenApiPath(r.path);
      add(path, r.method, operationObject(op, r.method, params, r.path));
      // A GET alias also takes POST with a body (core/pipeline/resolve-operation.ts): long share text fits there.
      if (r.method === 'GET') add(path, 'POST', operationObject(op, 'POST', params, r.path));
    }
  }
  add(BALANCE_PATH, 'GET', BALANCE_OPENAPI);
  for (const e of CONSOLE_ENDPOINTS) add(toOpenApiPath(e.path).path, e.method, consoleOperation(e));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Tollgate',
      version,
      description: 'Pay-per-call data API. Every successful /api call is billed in TOKEN (1 TOKEN = 1 yuan) from a prepaid balance or is free inside a plan quota.',
    },
    servers: [{ url: '/' }],
    security: [{ apiKeyHeader: [] }, { apiKeyQuery: [] }],
    tags: [
      { name: 'operations', description: 'Data operations from operations.yaml (API key)' },
      { name: 'console', description: 'Console API (user token)' },
      { name: 'admin', description: 'Administration (user token with the admin role)' },
    ],
    paths,
    components: {
      securitySchemes: {
        apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        apiKeyQuery: { type: 'apiKey', in: 'query', name: 'api_key' },
        bearer: { type: 'http', scheme: 'bearer', description: 'User token (ut_...) from POST /console/api/login' },
      },
      schemas: {
        Success: {
          type: 'object',
          required: ['success', 'data', 'deducted', 'remaining', 'cached', 'request_id'],
          properties: {
            success: { const: true },
            data: {},
            deducted: { type: 'number', description: 'TOKEN charged for this call' },
            remaining: { type: 'number', description: 'TOKEN balance after this call' },
            cached: { type: 'boolean' },
            request_id: { type: 'string' },
          },
        },
        Failure: {
          type: 'object',
          required: ['success', 'error', 'deducted', 'request_id'],
          properties: {
            success: { const: false },
            error: {
              type: 'object',
              required: ['code', 'message'],
              properties: { code: { type: 'string', enum: Object.keys(ERROR_CATALOGUE) }, message: { type: 'string' } },
            },
            deducted: { const: 0 },
            remaining: { type: 'number' },
            request_id: { type: 'string' },
          },
        },
      },
    },
  };
}

export function openapiRoutes(router: Router, s: Services): void {
  let cached: { version: number; body: string } | undefined;
  router.get('/openapi.json', (ctx) => {
    const registry = s.registry.current;
    if (cached?.version !== registry.version) cached = { version: registry.version, body: JSON.stringify(buildOpenApi(registry, s.version)) };
    ctx.type = 'application/json; charset=utf-8';
    ctx.body = cached.body;
  });
}
