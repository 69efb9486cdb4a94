// Load-time check of an operation's response_example against its `response:` fields, so the example the
// docs and the OpenAPI document show can never drift from the declared shape.
import { Ajv } from 'ajv';
import { objectSchema, type ResponseFields } from './response-fields.js';

// Formats are annotations here (the contract test checks real outputs); one Ajv per check keeps reloads clean.
const makeAjv = (): Ajv => new Ajv({ allErrors: true, strict: true, validateFormats: false });

/** null when `example` has exactly the declared fields and types, else the first few mismatches. */
export function exampleMismatch(fields: ResponseFields, example: Record<string, unknown>): string | null {
  const validate = makeAjv().compile(objectSchema(fields, null));
  if (validate(example)) return null;
  return (validate.errors ?? [])
    .slice(0, 3)
    .map(
      (e) =>
        `${e.instancePath || '/'} ${e.message ?? 'invalid'}${e.keyword === 'additionalProperties' ? ` (${String((e.params as { additionalProperty: string }).additionalProperty)})` : ''}`,
    )
    .join('; ');
}

/**
 * A check of answers mapped from a configured upstream against the declared fields, compiled once per load:
 * null when `data` matches, else the first failing JSON path and why (for the log; the caller is told only that
 * the upstream's answer changed shape).
 */
export function compileResponseCheck(fields: ResponseFields): (data: unknown) => string | null {
  const validate = makeAjv().compile(objectSchema(fields, null));
  return (data) => {
    if (validate(data)) return null;
    const e = validate.errors?.[0];
    if (!e) return 'invalid';
    const extra =
      e.keyword === 'additionalProperties'
        ? ` (${String((e.params as { additionalProperty: string }).additionalProperty)})`
        : '';
    return `${e.instancePath || '/'} ${e.message ?? 'invalid'}${extra}`;
  };
}
