// Ajv validators for an operation's input schema, compiled once per config load, never per request.
// Two flavours: values from a query string or form body are strings, so that validator coerces types
// (only where the schema says number/integer/boolean); a JSON body must already have the right types.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { InputSchema } from '../config/operations-config.js';

export interface InputValidator {
  /** Returns null when valid (and coerces `input` in place for string sources), else a clear message. */
  validate(input: Record<string, unknown>, source: 'strings' | 'json'): InputProblem | null;
}

function makeAjv(coerce: boolean): Ajv {
  // strictRequired off: `oneOf: [{required: [url]}, {required: [id]}]` is the natural way to say "one of these".
  const ajv = new Ajv({
    allErrors: false,
    strict: true,
    strictRequired: false,
    coerceTypes: coerce ? 'array' : false,
    useDefaults: true,
    // The failing field's schema on each error: a format refusal quotes the field's own description.
    verbose: true,
  });
  ajv.addKeyword({ keyword: 'example' });
  ajv.addKeyword({ keyword: 'x-label' });
  // The Chinese text of a property's description (operations-loader.ts), for readers, not for validation.
  ajv.addKeyword({ keyword: 'x-description-zh' });
  return ajv;
}

/** One Ajv per flavour for one config load: every operation's schemas compile into it, and a reload starts a
 * fresh pair, so schemas of removed operations never pile up. */
export interface ValidatorCompilers {
  strings: Ajv;
  json: Ajv;
}

export function createValidatorCompilers(): ValidatorCompilers {
  return { strings: makeAjv(true), json: makeAjv(false) };
}

function field(e: ErrorObject): string {
  const path = e.instancePath.replace(/^\//, '').replace(/\//g, '.');
  return path || 'input';
}

/**
 * What is wrong with an input, as data: the pipeline words it in the caller's language (core/http/error-details.ts),
 * never with Ajv's own English ("must match pattern ...", "must be >= 1").
 */
export type InputProblem =
  | { kind: 'missing' | 'unknown' | 'other'; name: string }
  /** `about`: the field's description in operations.yaml (en, and zh when it has one), which says what it takes. */
  | { kind: 'format'; name: string; about?: { en: string; zh?: string } }
  | { kind: 'type'; name: string; type: string }
  | { kind: 'enum'; name: string; values: string }
  | { kind: 'noForm'; name: string | null }
  | { kind: 'minLength' | 'maxLength' | 'minimum' | 'maximum'; name: string; limit: number };

/** The description a field's schema carries (operations-loader.ts turns {zh, en} into these two keywords). */
function aboutOf(schema: unknown): { en: string; zh?: string } | undefined {
  const s = (schema ?? {}) as Record<string, unknown>;
  if (typeof s.description !== 'string' || s.description.trim() === '') return undefined;
  const zh = s['x-description-zh'];
  return typeof zh === 'string' && zh.trim() !== '' ? { en: s.description, zh } : { en: s.description };
}

export function describeError(e: ErrorObject): InputProblem {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return { kind: 'missing', name: String(p.missingProperty) };
    case 'additionalProperties':
      return { kind: 'unknown', name: String(p.additionalProperty) };
    case 'type':
      return { kind: 'type', name: field(e), type: String(p.type) };
    case 'enum':
      return { kind: 'enum', name: field(e), values: (p.allowedValues as unknown[]).join(', ') };
    case 'pattern':
    case 'format': {
      const about = aboutOf(e.parentSchema);
      return about ? { kind: 'format', name: field(e), about } : { kind: 'format', name: field(e) };
    }
    case 'minLength':
    case 'maxLength':
    case 'minimum':
    case 'maximum':
      return { kind: e.keyword, name: field(e), limit: Number(p.limit) };
    case 'anyOf':
    case 'oneOf':
      return { kind: 'noForm', name: field(e) === 'input' ? null : field(e) };
    default:
      return { kind: 'other', name: field(e) };
  }
}

export function compileInputValidator(
  compilers: ValidatorCompilers,
  code: string,
  schema: InputSchema,
): InputValidator {
  let strings: ValidateFunction;
  let json: ValidateFunction;
  try {
    strings = compilers.strings.compile(schema);
    json = compilers.json.compile(schema);
  } catch (err) {
    throw new Error(`operation "${code}": input schema does not compile: ${(err as Error).message}`);
  }
  return {
    validate(input, source) {
      const fn = source === 'strings' ? strings : json;
      if (fn(input)) return null;
      const first = fn.errors?.[0];
      return first ? describeError(first) : { kind: 'noForm', name: null };
    },
  };
}
