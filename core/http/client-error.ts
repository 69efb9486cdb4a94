// Requests Node's HTTP parser refuses before the app sees them (oversized headers, malformed framing, a request
// that took too long) still get the JSON error envelope, so a client that parses JSON never breaks.

import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { newRequestId } from '../accounts/secrets.js';
import { ERROR_CATALOGUE, type ErrorCode } from './errors.js';

interface ParserError extends Error {
  code?: string;
}

const MESSAGES: Partial<Record<ErrorCode, string>> = {
  HEADERS_TOO_LARGE:
    'The request line and headers are too large. Send long parameters (such as pasted share text) as a POST body instead of the query string.',
  REQUEST_TIMEOUT: 'The request was not received in time; the connection is closed.',
  INVALID_INPUT: 'The HTTP request is malformed.',
};

export function classifyParserError(code: string | undefined): ErrorCode {
  if (code === 'HPE_HEADER_OVERFLOW') return 'HEADERS_TOO_LARGE';
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return 'REQUEST_TIMEOUT';
  if (code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW') return 'PAYLOAD_TOO_LARGE';
  return 'INVALID_INPUT';
}

/** Status, headers and body of an envelope answered outside Koa (no request context exists there). */
export function edgeEnvelope(code: ErrorCode): { status: number; headers: Record<string, string>; body: string } {
  const requestId = newRequestId();
  const body = JSON.stringify({
    success: false,
    error: { code, message: MESSAGES[code] ?? ERROR_CATALOGUE[code].message },
    deducted: 0,
    request_id: requestId,
  });
  return {
    status: ERROR_CATALOGUE[code].status,
    headers: {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': String(Buffer.byteLength(body)),
      'X-Request-Id': requestId,
      'X-Content-Type-Options': 'nosniff',
    },
    body,
  };
}

/** The whole raw HTTP/1.1 answer: the socket is closed after it (the parser's state is unknown). */
export function rawEnvelope(code: ErrorCode): string {
  const { status, headers, body } = edgeEnvelope(code);
  const lines = Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  return `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\n${lines}Connection: close\r\n\r\n${body}`;
}

/** server.on('clientError', onClientError). */
export function onClientError(err: ParserError, socket: Duplex): void {
  // A peer reset or a half-written response: there is nobody to answer, or the answer has started already.
  const pending = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (err.code === 'ECONNRESET' || !socket.writable || pending?.headersSent) {
    socket.destroy();
    return;
  }
  // Destroy once the answer is flushed (or after a second): a peer that never closes must not keep the descriptor.
  socket.end(rawEnvelope(classifyParserError(err.code)), () => socket.destroy());
  setTimeout(() => socket.destroy(), 1000).unref();
}
