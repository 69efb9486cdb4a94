// Body-parser failures as the client's fault with the right code, instead of 500: a corrupt gzip/deflate/br body
// (zlib's errors carry no HTTP status), an unknown Content-Encoding, oversized or malformed JSON.
import type { Context } from 'koa';
import { DETAILS } from './error-details.js';
import { ApiError } from './errors.js';

interface ParseError extends Error {
  status?: number;
  type?: string;
}

/** onError of @koa/bodyparser: runs only when parsing failed, so it costs nothing on the hot path. */
export function onBodyParseError(err: Error, ctx: Context): never {
  const e = err as ParseError;
  const encoding = ctx.get('content-encoding').trim().toLowerCase();
  if (e.status === 415) {
    throw new ApiError('UNSUPPORTED_MEDIA_TYPE', DETAILS.badEncoding(encoding.slice(0, 40)));
  }
  if (e.status === 413) throw new ApiError('PAYLOAD_TOO_LARGE', DETAILS.bodyTooLarge());
  if (e.status === undefined && encoding && encoding !== 'identity') {
    throw new ApiError('INVALID_INPUT', DETAILS.badEncodedBody(encoding.slice(0, 40)));
  }
  // Malformed JSON or form (400), an aborted upload: request-context turns these into the envelope.
  throw err;
}
