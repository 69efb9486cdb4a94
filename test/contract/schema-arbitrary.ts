// JSON Schema -> fast-check, for the subset the OpenAPI document's request schemas use: objects (required,
// properties, additionalProperties), strings (minLength, maxLength, pattern, enum, format email / uuid /
// date-time / uri), integers and numbers (minimum, maximum, exclusive bounds), booleans, arrays (items, minItems, maxItems), oneOf / anyOf
// and nullable type lists. `valid` draws values the schema accepts; `invalidVariants` names each way a value can
// break the schema (wrong type, out of range, too long, blank, bad enum, missing field, unknown field) with a
// drawer for it. Formats are drawn well-formed but never broken: in JSON Schema 2020-12 they are annotations.

import fc from 'fast-check';

// biome-ignore lint/suspicious/noExplicitAny: schemas are walked as plain JSON
export type Schema = Record<string, any>;

export interface Variant {
  /** What is wrong, e.g. "name: too long". */
  why: string;
  arb: fc.Arbitrary<unknown>;
}

const MAX_SAFE = Number.MAX_SAFE_INTEGER;
/** Arrays stay short: the bounds are checked by the invalid variants, not by long valid lists. */
const ARRAY_CAP = 4;

export const typesOf = (s: Schema): string[] => {
  if (Array.isArray(s.type)) return s.type;
  if (typeof s.type === 'string') return [s.type];
  if (s.enum) return [...new Set(s.enum.map((v: unknown) => (v === null ? 'null' : typeof v)))] as string[];
  return [];
};

/** Strings in two alphabets: mostly ASCII, sometimes any Unicode (length bounds count code points). */
function plainString(min: number, max: number): fc.Arbitrary<string> {
  const cap = Math.min(max, min + 40);
  return fc.oneof(
    { weight: 3, arbitrary: fc.string({ minLength: min, maxLength: cap }) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme-composite', minLength: min, maxLength: cap }) },
  );
}

const codePoints = (s: string): number => [...s].length;

function dateTime(): fc.Arbitrary<string> {
  const when = fc.date({
    min: new Date('2001-01-01T00:00:00Z'),
    max: new Date('2099-12-31T00:00:00Z'),
    noInvalidDate: true,
  });
  return fc.oneof(
    when.map((d) => d.toISOString()),
    when.map((d) => d.toISOString().replace(/\.\d{3}Z$/, 'Z')),
    fc
      .tuple(when, fc.constantFrom('+08:00', '-05:00', '+00:00'))
      .map(([d, off]) => d.toISOString().replace(/\.\d{3}Z$/, off)),
  );
}

function email(): fc.Arbitrary<string> {
  return fc.emailAddress();
}

function validString(s: Schema): fc.Arbitrary<string> {
  const min = s.minLength ?? 0;
  const max = s.maxLength ?? 200;
  const pattern = s.pattern ? new RegExp(s.pattern, 'u') : undefined;
  let base: fc.Arbitrary<string>;
  if (s.format === 'email') base = email();
  else if (s.format === 'date-time') base = dateTime();
  else if (s.format === 'uuid') base = fc.uuid();
  else if (s.format === 'uri') base = fc.webUrl({ validSchemes: ['http', 'https'] });
  else if (s.pattern && s.pattern !== '\\S') base = fc.stringMatching(new RegExp(s.pattern));
  else base = plainString(min, max);
  return base.filter((v) => codePoints(v) >= min && codePoints(v) <= max && (!pattern || pattern.test(v)));
}

function validInteger(s: Schema): fc.Arbitrary<number> {
  const min = BigInt(s.minimum ?? -MAX_SAFE);
  const max = BigInt(s.maximum ?? MAX_SAFE);
  return fc.oneof(fc.bigInt({ min, max }).map(Number), fc.constantFrom(min, max).map(Number));
}

function validNumber(s: Schema): fc.Arbitrary<number> {
  const min = s.minimum ?? s.exclusiveMinimum ?? -1e12;
  const max = s.maximum ?? s.exclusiveMaximum ?? 1e12;
  return fc
    .oneof(
      fc.double({ min, max, noNaN: true, noDefaultInfinity: true }).map((v) => (Object.is(v, -0) ? 0 : v)),
      fc.integer({ min: Math.ceil(Math.max(min, -1e6)), max: Math.floor(Math.min(max, 1e6)) }),
    )
    .filter(
      (v) =>
        (s.exclusiveMinimum === undefined || v > s.exclusiveMinimum) &&
        (s.exclusiveMaximum === undefined || v < s.exclusiveMaximum),
    );
}

function validObject(s: Schema): fc.Arbitrary<Record<string, unknown>> {
  const props: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [k, v] of Object.entries((s.properties ?? {}) as Record<string, Schema>)) props[k] = valid(v);
  return fc.record(props, { requiredKeys: s.required ?? [] }) as fc.Arbitrary<Record<string, unknown>>;
}

function validOfType(s: Schema, type: string): fc.Arbitrary<unknown> {
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'string':
      return validString(s);
    case 'integer':
      return validInteger(s);
    case 'number':
      return validNumber(s);
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(valid(s.items ?? {}), {
        minLength: s.minItems ?? 0,
        maxLength: Math.min(s.maxItems ?? ARRAY_CAP, Math.max(s.minItems ?? 0, ARRAY_CAP)),
      });
    case 'object':
      return validObject(s);
    default:
      throw new Error(`schema type ${type} is outside the translator's subset`);
  }
}

/** Values the schema accepts. */
export function valid(s: Schema): fc.Arbitrary<unknown> {
  const branches = s.oneOf ?? s.anyOf;
  if (branches) return fc.oneof(...(branches as Schema[]).map(valid));
  if (s.enum) return fc.constantFrom(...s.enum);
  if (s.const !== undefined) return fc.constant(s.const);
  const types = typesOf(s);
  if (types.length === 0) return fc.oneof(fc.string(), fc.integer(), fc.boolean());
  return fc.oneof(...types.map((t) => validOfType(s, t)));
}

/** One value of each JSON type, for "wrong type" variants. */
const SAMPLES: Array<[string, unknown]> = [
  ['string', 'x'],
  ['integer', 7],
  ['number', 1.5],
  ['boolean', true],
  ['null', null],
  ['object', { a: 1 }],
  ['array', [1]],
];

/** Values of the types `s` does not take: one variant each, or (`each` false) one variant drawing any of them. */
function wrongTypes(s: Schema, each: boolean): Variant[] {
  const types = typesOf(s);
  if (types.length === 0 || s.oneOf || s.anyOf) return [];
  const accepts = (t: string, v: unknown): boolean =>
    types.includes(t) ||
    (t === 'integer' && types.includes('number')) ||
    (t === 'number' && types.includes('integer') && Number.isInteger(v));
  const wrong = SAMPLES.filter(([t, v]) => !accepts(t, v) && !s.enum?.includes(v));
  if (wrong.length === 0) return [];
  if (!each) return [{ why: 'a wrong type', arb: fc.constantFrom(...wrong.map(([, v]) => v)) }];
  return wrong.map(([t, v]) => ({ why: `a ${t}`, arb: fc.constant(v) }));
}

/**
 * Each way a value can break `s`, as a named drawer. `inQuery`: only what a query string can carry; `field`: a
 * field of a body, whose wrong types are one variant (the body itself gets one per type).
 */
export function invalidVariants(s: Schema, inQuery = false, field = false): Variant[] {
  const out: Variant[] = [];
  const types = typesOf(s);
  if (s.enum) out.push({ why: 'not in the enum', arb: fc.constant('zz-not-listed') });
  if (inQuery) {
    if (!types.includes('string') && !s.enum)
      out.push({ why: 'not a number', arb: fc.constantFrom('abc', '1x', types.includes('boolean') ? 'maybe' : '1e') });
    if (types.includes('integer') && !types.includes('number'))
      out.push({ why: 'a fraction', arb: fc.constant('1.5') });
  } else out.push(...wrongTypes(s, !field));
  if (types.includes('integer') || types.includes('number')) {
    if (s.minimum !== undefined && s.minimum > -MAX_SAFE)
      out.push({ why: 'below the minimum', arb: fc.constant(s.minimum - 1).map((v) => (inQuery ? String(v) : v)) });
    if (s.maximum !== undefined)
      out.push({ why: 'above the maximum', arb: fc.constant(s.maximum + 1).map((v) => (inQuery ? String(v) : v)) });
    for (const k of ['exclusiveMinimum', 'exclusiveMaximum'] as const)
      if (s[k] !== undefined) out.push({ why: `at the ${k}`, arb: fc.constant(inQuery ? String(s[k]) : s[k]) });
  }
  if (types.includes('string') && !s.enum) {
    // An empty query value means "absent" (the console's convention), so blanks are broken only in bodies.
    if (s.minLength && !inQuery) out.push({ why: 'empty', arb: fc.constant('') });
    if (s.pattern === '\\S' && (s.maxLength ?? 3) >= 3) out.push({ why: 'blank', arb: fc.constant('   ') });
    if (s.maxLength !== undefined) out.push({ why: 'too long', arb: fc.constant('a'.repeat(s.maxLength + 1)) });
    else if (s.pattern && s.pattern !== '\\S' && !new RegExp(s.pattern, 'u').test('zz~'))
      out.push({ why: 'off the pattern', arb: fc.constant('zz~') });
  }
  if (types.includes('array') && !inQuery) {
    if (s.minItems) out.push({ why: 'too few items', arb: fc.constant([]) });
    if (s.maxItems !== undefined)
      out.push({
        why: 'too many items',
        arb: fc.array(valid(s.items ?? {}), { minLength: s.maxItems + 1, maxLength: s.maxItems + 1 }),
      });
    for (const v of invalidVariants(s.items ?? {}, false, true))
      out.push({ why: `an item ${v.why}`, arb: v.arb.map((x) => [x]) });
  }
  if (types.includes('object') && !inQuery) out.push(...objectVariants(s));
  return out;
}

/** An object with one field broken, one required field left out, or one unknown field added. */
function objectVariants(s: Schema): Variant[] {
  const out: Variant[] = [];
  const whole = validObject(s);
  for (const r of (s.required ?? []) as string[])
    out.push({
      why: `${r}: missing`,
      arb: whole.map((o) => {
        const { [r]: _, ...rest } = o;
        return rest;
      }),
    });
  if (s.additionalProperties === false)
    out.push({ why: 'an unknown field', arb: whole.map((o) => ({ ...o, zz_unknown: 1 })) });
  for (const [k, p] of Object.entries((s.properties ?? {}) as Record<string, Schema>))
    for (const v of invalidVariants(p, false, true))
      out.push({ why: `${k}: ${v.why}`, arb: fc.tuple(whole, v.arb).map(([o, bad]) => ({ ...o, [k]: bad })) });
  return out;
}
