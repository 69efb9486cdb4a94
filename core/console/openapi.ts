// GET /openapi.json: an OpenAPI 3.1 document built from the live operations.yaml (every /api operation with
// its input schema, response schema, route aliases, the envelope and the error catalogue) plus the console API.
// Rebuilt when the registry version changes, so a hot reload shows up without a restart. The parts live in
// core/console/openapi/; test/console/openapi-lint.test.ts lints the result with Redocly's recommended rules.
import type Router from '@koa/router';
import { ERROR_CATALOGUE } from '../http/errors.js';
import { BALANCE_PATH } from '../pipeline/balance-by-key.js';
import type { Registry } from '../registry/registry.js';
import type { Services } from '../services.js';
import { BALANCE_OPENAPI } from './balance-openapi.js';
import { CONSOLE_COMPONENTS } from './contract/components.js';
import { CONSOLE_ROUTES } from './contract/index.js';
import { dataSchemas, operationObject, toOpenApiPath } from './openapi/api-operations.js';
import { consoleOperation } from './openapi/console-operations.js';
import { STATUS_OPENAPI } from './openapi/status-schemas.js';

type Json = Record<string, unknown>;

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
  // The same answer by POST (core/app.ts), for clients that only post.
  add(BALANCE_PATH, 'POST', { ...BALANCE_OPENAPI, operationId: 'balanceByKeyPost' });
  add('/status.json', 'GET', STATUS_OPENAPI);
  for (const d of CONSOLE_ROUTES) add(toOpenApiPath(d.path).path, d.method, consoleOperation(d));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Tollgate',
      version,
      description:
        'Pay-per-call data API. Every successful /api call is billed in TOKEN (1 TOKEN = 1 yuan) from a prepaid balance or is free inside a plan quota.',
    },
    servers: [{ url: '/' }],
    security: [{ apiKeyHeader: [] }, { apiKeyQuery: [] }],
    tags: [
      { name: 'operations', description: 'Data operations from operations.yaml (API key)' },
      { name: 'console', description: 'Console API (user token)' },
      { name: 'admin', description: 'Administration (user token with the admin role)' },
      { name: 'status', description: 'Public operation status from canaries and live traffic (no key)' },
    ],
    paths,
    components: {
      securitySchemes: {
        apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        apiKeyQuery: { type: 'apiKey', in: 'query', name: 'api_key' },
        bearer: { type: 'http', scheme: 'bearer', description: 'User token (ut_...) from POST /console/api/login' },
      },
      schemas: {
        ...dataSchemas(registry.list()),
        ...CONSOLE_COMPONENTS,
        Success: {
          type: 'object',
          required: ['success', 'data', 'deducted', 'remaining', 'cached', 'request_id'],
          properties: {
            success: { const: true },
            data: {},
            deducted: {
              type: 'number',
              minimum: 0,
              description: 'TOKEN charged for this call (0 inside a plan quota or on a free cache hit)',
            },
            remaining: { type: 'number', description: 'TOKEN balance after this call' },
            cached: { type: 'boolean', description: 'answered from the cache' },
            request_id: { type: 'string', description: 'quote it when asking for support' },
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
    if (cached?.version !== registry.version)
      cached = { version: registry.version, body: JSON.stringify(buildOpenApi(registry, s.version)) };
    ctx.type = 'application/json; charset=utf-8';
    ctx.body = cached.body;
  });
}
