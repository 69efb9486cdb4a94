// Stage: one input object from the query, a JSON or form body, and path parameters; validated by the
// operation's schema (compiled at load). Unknown fields are rejected; the key itself is never part of input.

import { DETAILS } from '../http/error-details.js';
import { deny } from '../http/errors.js';
import type { Resolved, Stage } from './call.js';

/** An own property, whatever its name: plain assignment of "__proto__" would set the object's prototype instead. */
function put(target: Record<string, unknown>, name: string, value: unknown): void {
  if (name === '__proto__')
    Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true });
  else target[name] = value;
}

/** The parameters without the key. A loop rather than a rest spread: the query object has no prototype, which
 *  sends the spread down V8's slow path on every call. */
function withoutKey(source: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!source || typeof source !== 'object' || Array.isArray(source)) return out;
  for (const name of Object.keys(source))
    if (name !== 'api_key') put(out, name, (source as Record<string, unknown>)[name]);
  return out;
}

export const validateInput: Stage<Resolved, { input: Record<string, unknown> }> = (call) => {
  if (call.bodyKind === 'unsupported') {
    return deny('UNSUPPORTED_MEDIA_TYPE', DETAILS.apiBodyType());
  }
  if (call.bodyKind === 'json' && (typeof call.body !== 'object' || call.body === null || Array.isArray(call.body))) {
    return deny('INVALID_INPUT', DETAILS.apiBodyObject());
  }
  const input: Record<string, unknown> = withoutKey(call.query);
  for (const [name, value] of Object.entries(withoutKey(call.body))) {
    if (Object.hasOwn(input, name)) return deny('INVALID_INPUT', DETAILS.paramTwice(name, 'query'));
    put(input, name, value);
  }
  for (const [name, value] of Object.entries(call.pathParams)) {
    if (Object.hasOwn(input, name)) return deny('INVALID_INPUT', DETAILS.paramTwice(name, 'path'));
    put(input, name, value);
  }
  const problem = call.operation.validator.validate(input, call.bodyKind === 'json' ? 'json' : 'strings');
  if (problem) return deny('INVALID_INPUT', DETAILS.invalidParams(call.operation.code, problem));
  call.input = input;
  return undefined;
};
