// Building blocks of the console's request and response schemas, in TypeBox: each is the JSON Schema that Ajv
// checks and /openapi.json publishes, and its TypeScript type (Static). Node-free: the browser imports the types.
// Unions of JSON types are written as one `type` array (not anyOf), so a refusal names the field's own rule
// (core/console/routes/input-checks.ts words them).
import { type Static, type TObject, type TProperties, type TSchema, Type } from '@sinclair/typebox';

export type { Static, TSchema } from '@sinclair/typebox';

const MAX = Number.MAX_SAFE_INTEGER;

/** `schema`, typed as T (for shapes TypeBox would write differently: type arrays, bare enums, $refs). */
export const as = <T>(schema: Record<string, unknown>) => Type.Unsafe<T>(schema);

// --- Requests ---------------------------------------------------------------------------------------------

/** A string that is not blank. */
export const str = Type.String({ minLength: 1, pattern: '\\S' });
/** The same, at most `maxLength` characters. */
export const text = (maxLength: number, extra: Record<string, unknown> = {}) =>
  Type.String({ minLength: 1, pattern: '\\S', maxLength, ...extra });
/** One of `values`, as a bare enum. */
export const oneOf = <const V extends readonly string[]>(values: V, extra: Record<string, unknown> = {}) =>
  as<V[number]>({ enum: [...values], ...extra });
/** null allowed too, as a type union. */
export const nullable = <T extends TSchema>(s: T) =>
  as<Static<T> | null>({ ...s, type: [...[(s as { type?: unknown }).type].flat(), 'null'] });
/**
 * A TOKEN amount above 0: a JSON number, or a decimal string (surrounding spaces ignored) with at most 6 decimals,
 * at most 10^9 (core/kernel/money.ts toMicro). `notPositive` is the route's refusal of 0 or less. `x-error` names
 * the refusal per keyword ('@tokenRange': the console's range detail); `x-rule` states what the schema cannot, and
 * the document lists it in the operation's description (core/console/openapi/console-operations.ts).
 */
export const positiveTokens = (notPositive: string) =>
  as<number | string>({
    type: ['number', 'string'],
    pattern: '^\\s*\\d{1,10}(\\.\\d{1,6})?\\s*$',
    exclusiveMinimum: 0,
    maximum: 1_000_000_000,
    description: 'TOKEN amount, at most 6 decimals',
    'x-error': { pattern: '@tokenRange', maximum: '@tokenRange', exclusiveMinimum: notPositive },
    'x-rule': 'greater than 0 and at most 1000000000, at most 6 decimals',
  });
/** A request body: the listed fields only. */
const CURRENCY_ERROR = "'{field}' must be a positive amount with at most 2 decimals, in the order's currency.";
/** An amount in an order's currency: above 0, at most 2 decimals, a number or a decimal string (core/console/api/input.ts minorOf). */
export const currencyAmount = (description: string) =>
  as<number | string>({
    type: ['number', 'string'],
    pattern: '^\\s*\\d{1,12}(\\.\\d{1,2})?\\s*$',
    exclusiveMinimum: 0,
    description,
    'x-error': { pattern: CURRENCY_ERROR, exclusiveMinimum: CURRENCY_ERROR },
    'x-rule': 'greater than 0, at most 2 decimals',
  });

export const body = <P extends TProperties>(properties: P) => Type.Object(properties, { additionalProperties: false });
/** Query parameters: each optional, an empty value counts as absent; unknown names are ignored. */
export const query = <P extends TProperties>(properties: P) => Type.Object(properties);
/** An integer query value from 1 to `max`. */
export const upTo = (max: number, description: string) =>
  Type.Optional(Type.Integer({ minimum: 1, maximum: max, description }));
/** An id or id cursor in a query: a positive safe integer. */
export const idQuery = (description: string) => Type.Optional(Type.Integer({ minimum: 1, maximum: MAX, description }));
/** A free-form query value. */
export const textQuery = (description: string) => Type.Optional(Type.String({ minLength: 1, description }));
/** A path id: a positive integer; anything else is 404 RESOURCE_NOT_FOUND naming `what` (never 400). */
export const pathId = (what: string) =>
  Type.Unsafe<number>({ type: 'integer', minimum: 1, maximum: MAX, 'x-not-found': what });
/** Path parameters. */
export const params = <P extends TProperties>(properties: P): TObject<P> => Type.Object(properties);

// --- Answers ------------------------------------------------------------------------------------------------
// Console answers are plain JSON objects whose listed keys are all present (unless optional). They stay open to
// new keys: a console client must ignore what it does not know.

export const rStr = Type.String();
export const rInt = Type.Integer();
export const rBool = Type.Boolean();
export const rNumber = Type.Number();
export const rTokens = Type.Number({ description: 'TOKEN' });
export const rTime = Type.String({ format: 'date-time' });
/** Any JSON object. */
export const anyObject = as<Record<string, unknown>>({ type: 'object' });
/** Exactly this value. */
export const constant = <const V extends string | number | boolean>(value: V, extra: Record<string, unknown> = {}) =>
  as<V>({ const: value, ...extra });
/** `s` or null. */
export const orNull = <T extends TSchema>(s: T) => nullable(s);
export const list = <T extends TSchema>(item: T) => Type.Array(item);
/** An object answer: every key present except `optional` ones (wrap them in Type.Optional). */
export const answer = <P extends TProperties>(properties: P) => Type.Object(properties);
/** A shared shape published under components.schemas, referred to by name. */
export const ref = <T extends TSchema>(name: string, _shape: T) =>
  as<Static<T>>({ $ref: `#/components/schemas/${name}` });
/** Both shapes at once (allOf), e.g. a component extended by a route. */
export const both = <A extends TSchema, B extends TSchema>(a: A, b: B) => as<Static<A> & Static<B>>({ allOf: [a, b] });
export const nextBefore = as<number | null>({
  type: ['integer', 'null'],
  description: 'id cursor for the next page (before=); null on the last page',
});
export { Type };
