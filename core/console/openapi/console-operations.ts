// The console routes in the OpenAPI document, from their definitions (core/console/contract/): path ids as
// integers >= 1 (what idParam accepts), the body and query schemas the mounter validates with
// (core/console/routes/mount-routes.ts compiles these very objects), a response schema per success status and
// the definition's `links`, so a client or a stateful fuzzer can follow create -> use -> delete flows.
import type { ErrorCode } from '../../http/errors.js';
import type { RouteDef } from '../contract/define.js';
import { toOpenApiPath } from './api-operations.js';
import { CONSOLE_ERRORS, errorResponses } from './error-schemas.js';

type Json = Record<string, unknown>;

/** Path ids are positive integers: anything else is 404 RESOURCE_NOT_FOUND (core/console/api/input.ts idParam). */
export const PATH_ID = { type: 'integer', minimum: 1, maximum: 9_007_199_254_740_991 };

const CSV = { 'text/csv': { schema: { type: 'string', description: 'RFC 4180 CSV with a header line' } } };

function successContent(d: RouteDef, schema: Json): Json {
  if (d.produces === 'text/csv') return CSV;
  const json = { 'application/json': { schema } };
  return d.produces === 'json+csv' ? { ...json, ...CSV } : json;
}

const propertiesOf = (schema: unknown): Record<string, Json> =>
  ((schema as { properties?: Record<string, Json> } | undefined)?.properties ?? {}) as Record<string, Json>;

/** The rules of the body and query fields that no schema keyword states (`x-rule`), one line per field. */
function rulesOf(d: RouteDef): string | undefined {
  const fields = [...Object.entries(propertiesOf(d.query)), ...Object.entries(propertiesOf(d.body))];
  const lines = fields.filter(([, s]) => typeof s['x-rule'] === 'string').map(([n, s]) => `- \`${n}\`: ${s['x-rule']}`);
  return lines.length ? `Also refused with 400 INVALID_INPUT, beyond the schemas:\n${lines.join('\n')}` : undefined;
}

export function consoleOperation(d: RouteDef): Json {
  const { params } = toOpenApiPath(d.path);
  const parameters: Json[] = [
    ...params.map((name) => ({ name, in: 'path', required: true, schema: PATH_ID })),
    ...Object.entries(propertiesOf(d.query)).map(([name, { description, ...schema }]) => ({
      name,
      in: 'query',
      required: false,
      description: String(description ?? ''),
      schema,
    })),
  ];
  const rules = rulesOf(d);
  const codes = [
    ...CONSOLE_ERRORS,
    ...(d.body ? ['UNSUPPORTED_MEDIA_TYPE' as const] : []),
    // REQUIRE_ADMIN_2FA: an admin without 2FA is refused on admin routes (core/console/api/auth.ts requireAdmin).
    ...(d.auth === 'admin' ? ['TWO_FACTOR_REQUIRED' as const] : []),
    ...((d.errors ?? []) as ErrorCode[]),
  ];
  return {
    operationId: d.id,
    summary: d.summary,
    ...(rules ? { description: rules } : {}),
    tags: [d.auth === 'admin' ? 'admin' : 'console'],
    security: d.auth === 'none' ? [] : [{ bearer: [] }],
    parameters,
    ...(d.body ? { requestBody: { required: true, content: { 'application/json': { schema: d.body } } } } : {}),
    responses: {
      ...Object.fromEntries(
        Object.entries(d.responses).map(([status, schema]) => [
          status,
          {
            description: 'Success',
            content: successContent(d, schema as Json),
            ...(d.links ? { links: d.links } : {}),
          },
        ]),
      ),
      ...errorResponses(codes),
    },
  };
}
