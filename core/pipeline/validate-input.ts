// Stage: one input object from the query, a JSON or form body, and path parameters; validated by the
// operation's schema (compiled at load). Unknown fields are rejected; the key itself is never part of input.
import { deny } from '../http/errors.js';
import type { Stage } from './call.js';

function withoutKey(source: unknown): Record<string, unknown> {
  if (!source || typeof source !== 'object' || Array.isArray(source)) return {};
  const { api_key: _ignored, ...rest } = source as Record<string, unknown>;
  return rest;
}

export const validateInput: Stage = async (call) => {
  if (call.bodyKind === 'unsupported') {
    return deny(
      'UNSUPPORTED_MEDIA_TYPE',
      'Unsupported Content-Type: send application/json or application/x-www-form-urlencoded.',
    );
  }
  if (call.bodyKind === 'json' && (typeof call.body !== 'object' || call.body === null || Array.isArray(call.body))) {
    return deny('INVALID_INPUT', 'The JSON body must be an object of parameters.');
  }
  const input: Record<string, unknown> = withoutKey(call.query);
  for (const [name, value] of Object.entries(withoutKey(call.body))) {
    if (name in input) return deny('INVALID_INPUT', `parameter '${name}' is given in both the query and the body`);
    input[name] = value;
  }
  for (const [name, value] of Object.entries(call.pathParams)) {
    if (name in input) return deny('INVALID_INPUT', `parameter '${name}' is given in both the path and the request`);
    input[name] = value;
  }
  const problem = call.operation!.validator.validate(input, call.bodyKind === 'json' ? 'json' : 'strings');
  if (problem) return deny('INVALID_INPUT', `Invalid input for ${call.operation!.code}: ${problem}.`);
  call.input = input;
  return undefined;
};
