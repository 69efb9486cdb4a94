// Building blocks of the console API's request schemas (console-endpoints.ts and its sibling lists): what the
// handlers enforce, published in the OpenAPI document and checked by Ajv before each handler runs.

import type { ErrorCode } from '../../http/errors.js';

export type Schema = Record<string, unknown>;

export interface ConsoleEndpoint {
  id: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  summary: string;
  auth: 'none' | 'user' | 'admin';
  body?: Schema;
  query?: Array<{ name: string; description: string; schema?: Schema }>;
  status?: number;
  /** text/csv: a CSV file; json+csv: JSON, or CSV when asked with ?format=csv. */
  produces?: 'application/json' | 'text/csv' | 'json+csv';
  /** The success answers by status (routes defined in core/console/contract/; the rest: console-responses.ts). */
  responses?: Record<string, Schema>;
  /** Catalogue codes this route answers beyond the console's common ones (CONSOLE_ERRORS). */
  errors?: ErrorCode[];
  /** OpenAPI links of the success answer (routes defined in core/console/contract/; the rest: console-operations.ts). */
  links?: Record<string, unknown>;
}

/** A string the handler reads with reqString: not blank. */
export const str = { type: 'string', minLength: 1, pattern: '\\S' };
/** The same, at most `maxLength` characters (the handler's limit). */
export const text = (maxLength: number) => ({ ...str, maxLength });
/** An id or id cursor in a query: a positive safe integer (queryInt(…, 1, MAX_SAFE_INTEGER)). */
export const int = { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER };
/** An integer query value from 1 to `max`. */
export const upTo = (max: number): Schema => ({ type: 'integer', minimum: 1, maximum: max });
/**
 * A TOKEN amount: a JSON number, or a decimal string (surrounding spaces ignored) with at most 6 decimals, from
 * -10^9 to 10^9 (core/kernel/money.ts toMicro). `x-rule` states what the schema cannot: the document lists it in
 * the operation's description (core/console/openapi/console-operations.ts).
 */
export const tokens = {
  type: ['number', 'string'],
  pattern: '^\\s*-?\\d{1,10}(\\.\\d{1,6})?\\s*$',
  minimum: -1_000_000_000,
  maximum: 1_000_000_000,
  description: 'TOKEN amount, at most 6 decimals',
  'x-error': { pattern: '@tokenRange', minimum: '@tokenRange', maximum: '@tokenRange' },
  'x-rule': 'at most 6 decimals, from -1000000000 to 1000000000',
};
/** A TOKEN amount above 0; `notPositive` is the route's refusal of 0 or less. */
export const positiveTokens = (notPositive: string): Schema => ({
  type: tokens.type,
  pattern: '^\\s*\\d{1,10}(\\.\\d{1,6})?\\s*$',
  exclusiveMinimum: 0,
  maximum: tokens.maximum,
  description: tokens.description,
  'x-error': { pattern: '@tokenRange', maximum: '@tokenRange', exclusiveMinimum: notPositive },
  'x-rule': 'greater than 0 and at most 1000000000, at most 6 decimals',
});
/** An amount in an order's currency (admin-routes.ts minorOf): above 0, at most 2 decimals. */
const CURRENCY_ERROR = "'{field}' must be a positive amount with at most 2 decimals, in the order's currency.";
export const currencyAmount = (description: string): Schema => ({
  type: ['number', 'string'],
  pattern: '^\\s*\\d{1,12}(\\.\\d{1,2})?\\s*$',
  exclusiveMinimum: 0,
  description,
  'x-error': { pattern: CURRENCY_ERROR, exclusiveMinimum: CURRENCY_ERROR },
  'x-rule': 'greater than 0, at most 2 decimals',
});
/** null allowed too; a type union (not oneOf) so a refusal names the field's own rule (request-validation.ts). */
export const nullable = (s: Schema): Schema => ({ ...s, type: [...[s.type].flat(), 'null'] });
export const obj = (properties: Record<string, Schema>, required: string[] = []): Schema => ({
  type: 'object',
  additionalProperties: false,
  properties,
  ...(required.length ? { required } : {}),
});

/** A new password: 8-200 characters with letters and digits (checked by the handler). */
export const NEW_PASSWORD = {
  type: 'string',
  minLength: 8,
  maxLength: 200,
  // core/accounts/passwords.ts: at least one ASCII letter and one digit, in either order.
  pattern: '[A-Za-z][\\s\\S]*[0-9]|[0-9][\\s\\S]*[A-Za-z]',
  description: '8-200 characters, letters and digits',
  'x-error': {
    minLength: 'Weak password: password must be at least 8 characters.',
    pattern: 'Weak password: password must contain letters and digits.',
  },
};
/** limit (1-max) and the id cursor of a paged list; each route has its own maximum page size. */
export const pageOf = (max: number) => [
  { name: 'limit', description: `page size, 1-${max}`, schema: upTo(max) },
  { name: 'before', description: 'id cursor: next_before of the previous page', schema: int },
];
// Refusals worded as the handlers word them.
const TZ_ERROR = "'tz' must be an IANA time zone such as Asia/Shanghai or Europe/London.";
/** Every CSV export: UTF-8 with a BOM, header labels in `lang`, times as YYYY-MM-DD HH:mm:ss in `tz`. */
export const csvLocaleQuery = [
  {
    name: 'tz',
    description: 'IANA time zone of the times, e.g. Europe/London (default Asia/Shanghai)',
    schema: {
      type: 'string',
      maxLength: 64,
      pattern: '^[A-Za-z][A-Za-z0-9_+\\-/]*$',
      'x-error': { pattern: TZ_ERROR },
      'x-rule': 'a zone in the IANA time zone database',
    },
  },
  {
    name: 'lang',
    description: 'header language: zh or en (default: Accept-Language, else zh)',
    schema: { type: 'string', enum: ['zh', 'en'] },
  },
];
