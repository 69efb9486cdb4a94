// The console routes in the OpenAPI document: path ids as integers >= 1 (what idParam accepts), the request body
// and query schemas the console validates with (core/console/api/request-validation.ts compiles these very
// objects), a response schema per route and `links`, so a client or a stateful fuzzer can follow create -> use ->
// delete flows.
import type { ConsoleEndpoint } from '../api/console-endpoints.js';
import { toOpenApiPath } from './api-operations.js';
import { CONSOLE_RESPONSES } from './console-responses.js';
import { CONSOLE_ERRORS, errorResponses } from './error-schemas.js';

type Json = Record<string, unknown>;

/** Path ids are positive integers: anything else is 404 RESOURCE_NOT_FOUND (core/console/api/input.ts idParam). */
export const PATH_ID = { type: 'integer', minimum: 1, maximum: 9_007_199_254_740_991 };

const byId = (id: string): Json => ({ id: `$response.body#/${id}` });

/** Links from a route's success answer to the routes that act on what it made or listed (the first item). */
const LINKS: Record<string, Record<string, Json>> = {
  sessions: {
    revokeSession: {
      operationId: 'revokeSession',
      parameters: byId('items/0/id'),
      description: 'Sign out the first listed session',
    },
  },
  listKeys: {
    updateKey: { operationId: 'updateKey', parameters: byId('keys/0/id'), description: 'Change the first key' },
  },
  listOrders: {
    getOrder: { operationId: 'getOrder', parameters: byId('orders/0/id'), description: 'The newest order' },
  },
  createKey: {
    updateKey: {
      operationId: 'updateKey',
      parameters: byId('key/id'),
      description: 'Rename, disable or limit the new key',
    },
    rotateKey: { operationId: 'rotateKey', parameters: byId('key/id'), description: 'Rotate its secret' },
    deleteKey: { operationId: 'deleteKey', parameters: byId('key/id'), description: 'Delete the new key' },
  },
  createOrder: {
    getOrder: { operationId: 'getOrder', parameters: byId('order/id'), description: 'Follow the order' },
    cancelOrder: { operationId: 'cancelOrder', parameters: byId('order/id'), description: 'Cancel it while pending' },
    adminConfirmOrder: {
      operationId: 'adminConfirmOrder',
      parameters: byId('order/id'),
      description: 'An operator confirms the payment',
    },
  },
  adminCreateRedeemCodes: {
    redeem: {
      operationId: 'redeem',
      requestBody: { code: '$response.body#/codes/0' },
      description: 'A customer redeems the first code',
    },
    adminRedeemCsv: {
      operationId: 'adminRedeemCsv',
      parameters: { batch: '$response.body#/batch_id' },
      description: 'The batch as CSV',
    },
  },
  ...Object.fromEntries(
    ['my', 'operator'].map((who) => [
      `${who}CreateWebhook`,
      {
        [`${who}UpdateWebhook`]: {
          operationId: `${who}UpdateWebhook`,
          parameters: byId('webhook/id'),
          description: 'Enable or disable it',
        },
        [`${who}WebhookDeliveries`]: {
          operationId: `${who}WebhookDeliveries`,
          parameters: byId('webhook/id'),
          description: 'Its delivery log',
        },
        [`${who}DeleteWebhook`]: {
          operationId: `${who}DeleteWebhook`,
          parameters: byId('webhook/id'),
          description: 'Delete it',
        },
      },
    ]),
  ),
};

const CSV = { 'text/csv': { schema: { type: 'string', description: 'RFC 4180 CSV with a header line' } } };

function successContent(e: ConsoleEndpoint, schema: Json | undefined): Json {
  if (e.produces === 'text/csv') return CSV;
  const json = { 'application/json': { schema: schema ?? { type: 'object' } } };
  return e.produces === 'json+csv' ? { ...json, ...CSV } : json;
}

/** The success answers by status: the route's own (a defined route), else console-responses.ts. */
function successes(e: ConsoleEndpoint): Array<[string, Json | undefined]> {
  if (e.responses) return Object.entries(e.responses);
  return [[String(e.status ?? 200), CONSOLE_RESPONSES[e.id]]];
}

/** The rules of the body and query fields that no schema keyword states (`x-rule`), one line per field. */
function rulesOf(e: ConsoleEndpoint): string | undefined {
  const fields: Array<[string, Json]> = [
    ...(e.query ?? []).filter((q) => q.schema).map((q): [string, Json] => [q.name, q.schema as Json]),
    ...Object.entries((e.body?.properties ?? {}) as Record<string, Json>),
  ];
  const lines = fields.filter(([, s]) => typeof s['x-rule'] === 'string').map(([n, s]) => `- \`${n}\`: ${s['x-rule']}`);
  return lines.length ? `Also refused with 400 INVALID_INPUT, beyond the schemas:\n${lines.join('\n')}` : undefined;
}

export function consoleOperation(e: ConsoleEndpoint): Json {
  const { params } = toOpenApiPath(e.path);
  const parameters: Json[] = [
    ...params.map((name) => ({ name, in: 'path', required: true, schema: PATH_ID })),
    ...(e.query ?? []).map((q) => ({
      name: q.name,
      in: 'query',
      required: false,
      description: q.description,
      schema: q.schema ?? { type: 'string', minLength: 1 },
    })),
  ];
  const links = e.links ?? LINKS[e.id];
  const rules = rulesOf(e);
  const codes = [
    ...CONSOLE_ERRORS,
    ...(e.body ? ['UNSUPPORTED_MEDIA_TYPE' as const] : []),
    // REQUIRE_ADMIN_2FA: an admin without 2FA is refused on admin routes (core/console/api/auth.ts requireAdmin).
    ...(e.auth === 'admin' ? ['TWO_FACTOR_REQUIRED' as const] : []),
    ...(e.errors ?? []),
  ];
  return {
    operationId: e.id,
    summary: e.summary,
    ...(rules ? { description: rules } : {}),
    tags: [e.auth === 'admin' ? 'admin' : 'console'],
    security: e.auth === 'none' ? [] : [{ bearer: [] }],
    parameters,
    ...(e.body ? { requestBody: { required: true, content: { 'application/json': { schema: e.body } } } } : {}),
    responses: {
      ...Object.fromEntries(
        successes(e).map(([status, schema]) => [
          status,
          { description: 'Success', content: successContent(e, schema), ...(links ? { links } : {}) },
        ]),
      ),
      ...errorResponses(codes),
    },
  };
}
