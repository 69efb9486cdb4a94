// Ajv validators for an operation's input schema, compiled once per config load, never per request.
// Two flavours: values from a query string or form body are strings, so that validator coerces types
// (only where the schema says number/integer/boolean); a JSON body must already have the right types.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { InputSchema } from '../config/operations-config.js';

export interface InputValidator {
  /** Returns null when valid (and coerces `input` in place for string sources), else a clear message. */
  validate(input: Record<string, unknown>, source: 'strings' | 'json'): string | null;
}

function makeAjv(coerce: boolean): Ajv {
  // strictRequired off: `oneOf: [{required: [url]}, {required: [id]}]` is the natural way to say "one of these".
  const ajv = new Ajv({
    allErrors: false,
    strict: true,
    strictRequired: false,
    coerceTypes: coerce ? 'array' : false,
    useDefaults: true,
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

export function describeError(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return `missing required parameter '${String(p.missingProperty)}'`;
    case 'additionalProperties':
      return `unknown parameter '${String(p.additionalProperty)}'`;
    case 'type':
      return `parameter '${field(e)}' must be ${String(p.type)}`;
    case 'enum':
      return `parameter '${field(e)}' must be one of: ${(p.allowedValues as unknown[]).join(', ')}`;
    case 'pattern':
      return `parameter '${field(e)}' has an invalid format`;
    case 'anyOf':
    case 'oneOf':
      return `${field(e) === 'input' ? 'the input' : `parameter '${field(e)}'`} does not match any accepted form`;
    default:
      return `parameter '${field(e)}' ${e.message ?? 'is invalid'}`;
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
      return first ? describeError(first) : 'invalid input';
    },
  };
}
