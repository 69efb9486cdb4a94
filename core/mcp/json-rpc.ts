// The JSON-RPC 2.0 subset MCP's stateless Streamable HTTP transport needs: one message per POST (batches were
// removed from MCP in 2025-06-18, and we negotiate no older version), requests answered with a JSON body,
// notifications and client responses acknowledged with 202 and no body.
export type JsonRpcId = string | number;

/** JSON-RPC's own codes, and one from the implementation-defined range for a refused API key. */
export const RPC = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  UNAUTHORIZED: -32001,
} as const;

export interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}

export type Incoming =
  | { kind: 'request'; id: JsonRpcId; method: string; params: Record<string, unknown> }
  /** A notification, or the client's answer to a request we never send: nothing to reply. */
  | { kind: 'notification' }
  | { kind: 'invalid'; id: JsonRpcId | null; error: RpcError };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A usable id is a string or an integer-valued number; null ids are legal only in error responses. */
function idOf(v: unknown): JsonRpcId | null {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  return null;
}

/** Classifies one parsed body; the reason a message is refused goes back to the client in words. */
export function classify(body: unknown): Incoming {
  if (Array.isArray(body)) {
    return {
      kind: 'invalid',
      id: null,
      error: {
        code: RPC.INVALID_REQUEST,
        message: 'JSON-RPC batches are not supported: send one message per POST (MCP 2025-06-18 and later).',
      },
    };
  }
  if (!isObject(body) || body.jsonrpc !== '2.0') {
    return {
      kind: 'invalid',
      id: isObject(body) ? idOf(body.id) : null,
      error: {
        code: RPC.INVALID_REQUEST,
        message: 'Not a JSON-RPC 2.0 message: an object with "jsonrpc": "2.0" is expected.',
      },
    };
  }
  const id = idOf(body.id);
  if (typeof body.method !== 'string') {
    // A response from the client ({id, result} or {id, error}): we send no requests, so there is nothing to match.
    if ('id' in body && ('result' in body || 'error' in body)) return { kind: 'notification' };
    return { kind: 'invalid', id, error: { code: RPC.INVALID_REQUEST, message: 'The message has no "method".' } };
  }
  if (body.params !== undefined && !isObject(body.params)) {
    return { kind: 'invalid', id, error: { code: RPC.INVALID_PARAMS, message: '"params" must be an object.' } };
  }
  if (!('id' in body)) return { kind: 'notification' };
  if (id === null)
    return {
      kind: 'invalid',
      id: null,
      error: { code: RPC.INVALID_REQUEST, message: '"id" must be a string or a number.' },
    };
  return {
    kind: 'request',
    id,
    method: body.method,
    params: (body.params as Record<string, unknown> | undefined) ?? {},
  };
}

export function rpcResult(id: JsonRpcId, result: unknown): string {
  return JSON.stringify({ jsonrpc: '2.0', id, result });
}

export function rpcError(id: JsonRpcId | null, error: RpcError): string {
  return JSON.stringify({ jsonrpc: '2.0', id, error });
}
