// POST /mcp: the operations as MCP tools over stateless Streamable HTTP with JSON responses (no sessions, no SSE
// stream: GET and DELETE are 405, as the spec allows). Every request carries the caller's API key (X-API-Key or
// Authorization: Bearer sk_...), checked by the pipeline's own authenticate stage; a tool call is an /api call.
// A small JSON-RPC subset instead of @modelcontextprotocol/sdk's server: that server would bring express, hono,
// jose, zod and ~30 more packages into production and answer outside Koa; the protocol here is five methods.

import { bodyParser } from '@koa/bodyparser';
import type Koa from 'koa';
import type { KeyIdentity } from '../accounts/api-keys.js';
import { callerLocale } from '../http/envelope.js';
import { ApiError, type Denial, ERROR_TEXT, localizedMessage, statusOf } from '../http/errors.js';
import { authenticate } from '../pipeline/authenticate.js';
import { beginCall } from '../pipeline/koa-door.js';
import type { Operation } from '../registry/registry.js';
import type { Services } from '../services.js';
import { isDatabaseUnavailable } from '../store/database-errors.js';
import { classify, type JsonRpcId, RPC, type RpcError, rpcError, rpcResult } from './json-rpc.js';
import { callTool } from './tool-call.js';
import { callableOperations, toolContext, toolOf } from './tools.js';

export const MCP_PATH = '/mcp';
/** Newest first: an unknown requested version is answered with the newest (the client then decides). */
export const PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18'];

const parseJson = bodyParser({
  enableTypes: ['json'],
  jsonLimit: '256kb',
  encoding: 'utf-8',
  onError: (err, ctx) => {
    ctx.state.mcpBodyError = err;
  },
});

function send(ctx: Koa.Context, status: number, body: string | null): void {
  ctx.status = status;
  ctx.set('Cache-Control', 'no-store');
  if (body === null) {
    // Koa turns a null body into 204; an accepted notification is 202 with an empty body.
    ctx.body = '';
    ctx.remove('Content-Type');
    return;
  }
  ctx.type = 'application/json; charset=utf-8';
  ctx.body = body;
}

/** The key from X-API-Key, else from Authorization: Bearer (what MCP clients' config files can set). */
function keyOf(ctx: Koa.Context): string | undefined {
  const header = ctx.get('x-api-key').trim();
  if (header) return header;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('authorization'));
  return m?.[1];
}

/** HTTP-level refusal of the key: 401 (with WWW-Authenticate) or 403, and a JSON-RPC error naming our code. */
function refuseKey(ctx: Koa.Context, denial: Denial): void {
  const locale = callerLocale(ctx.get('accept-language') || undefined);
  const message =
    denial.code === 'MISSING_API_KEY'
      ? locale === 'zh'
        ? '缺少 API 密钥：请在 X-API-Key 请求头或 Authorization: Bearer sk_... 中发送。'
        : 'No API key: send it in the X-API-Key header or as Authorization: Bearer sk_...'
      : localizedMessage(denial.code, denial.message, locale);
  const status = statusOf(denial.code);
  if (status === 401) ctx.set('WWW-Authenticate', 'Bearer realm="tollgate"');
  send(
    ctx,
    status,
    rpcError(null, {
      code: RPC.UNAUTHORIZED,
      message,
      data: { code: denial.code, hint: ERROR_TEXT[denial.code][locale].hint },
    }),
  );
}

async function identify(ctx: Koa.Context, s: Services, key: string | undefined): Promise<KeyIdentity | Denial> {
  if (!key) return { code: 'MISSING_API_KEY' };
  const call = beginCall(ctx, s);
  call.headers = { ...ctx.headers, 'x-api-key': key };
  const denial = await authenticate(call, s);
  return denial ?? call.identity!;
}

/** Transport checks before the body is read; a refusal is the HTTP status and the JSON-RPC error to send. */
function transportProblem(ctx: Koa.Context): [number, RpcError] | undefined {
  if (!ctx.is('application/json'))
    return [415, { code: RPC.INVALID_REQUEST, message: 'Content-Type must be application/json.' }];
  if (ctx.get('accept') && !ctx.accepts('application/json'))
    return [406, { code: RPC.INVALID_REQUEST, message: 'The Accept header must allow application/json.' }];
  const version = ctx.get('mcp-protocol-version');
  if (version && !PROTOCOL_VERSIONS.includes(version)) {
    return [
      400,
      {
        code: RPC.INVALID_REQUEST,
        message: `Unsupported MCP-Protocol-Version ${version.slice(0, 40)}; supported: ${PROTOCOL_VERSIONS.join(', ')}.`,
      },
    ];
  }
  return undefined;
}

function bodyProblem(err: Error & { status?: number }): [number, RpcError] {
  if (err.status === 413) return [413, { code: RPC.INVALID_REQUEST, message: 'The request body is over 256 KB.' }];
  if (err.status === 415)
    return [
      415,
      { code: RPC.INVALID_REQUEST, message: 'Unsupported Content-Encoding: send gzip, deflate, br or none.' },
    ];
  return [400, { code: RPC.PARSE_ERROR, message: 'The request body is not valid JSON.' }];
}

function initializeResult(s: Services, params: Record<string, unknown>, locale: 'zh' | 'en'): unknown {
  const asked = params.protocolVersion;
  return {
    protocolVersion: typeof asked === 'string' && PROTOCOL_VERSIONS.includes(asked) ? asked : PROTOCOL_VERSIONS[0],
    capabilities: { tools: { listChanged: false } },
    serverInfo: { name: 'tollgate', title: 'Tollgate', version: s.version },
    instructions:
      locale === 'zh'
        ? '每个工具是一次按次计费的数据接口调用，价格写在工具说明中；失败的调用不扣费，结果的 _meta 中有扣费（deducted）和余额（remaining）。'
        : "Each tool is one pay-per-call data API call, priced in its description; failed calls are free, and each result's _meta carries the charge (deducted) and the balance (remaining).",
  };
}

type Outcome = { result: unknown } | { error: RpcError };

async function dispatch(
  ctx: Koa.Context,
  s: Services,
  key: string,
  identity: KeyIdentity,
  method: string,
  params: Record<string, unknown>,
): Promise<Outcome> {
  switch (method) {
    case 'initialize':
      if (typeof params.protocolVersion !== 'string')
        return { error: { code: RPC.INVALID_PARAMS, message: 'initialize needs params.protocolVersion.' } };
      return { result: initializeResult(s, params, callerLocale(ctx.get('accept-language') || undefined)) };
    case 'ping':
      return { result: {} };
    case 'tools/list': {
      const registry = s.registry.current;
      const reachesOut = (op: Operation) => (s.sandbox.manifest(op.plugin)?.allow_hosts.length ?? 0) > 0;
      const c = toolContext(registry, callerLocale(ctx.get('accept-language') || undefined), reachesOut);
      return { result: { tools: callableOperations(registry, identity).map((op) => toolOf(op, c)) } };
    }
    case 'tools/call': {
      const {
        name,
        arguments: args = {},
        _meta: meta,
      } = params as { name?: unknown; arguments?: unknown; _meta?: { idempotency_key?: unknown } };
      if (typeof name !== 'string' || !s.registry.current.get(name)) {
        return { error: { code: RPC.INVALID_PARAMS, message: `Unknown tool: ${String(name).slice(0, 64)}` } };
      }
      if (typeof args !== 'object' || args === null || Array.isArray(args))
        return { error: { code: RPC.INVALID_PARAMS, message: 'params.arguments must be an object.' } };
      const idem = meta?.idempotency_key;
      // A key of another type must not be dropped silently: the caller would believe a retry is safe.
      if (idem !== undefined && typeof idem !== 'string')
        return {
          error: { code: RPC.INVALID_PARAMS, message: 'params._meta.idempotency_key must be a string.' },
        };
      return {
        result: await callTool(ctx, s, {
          name,
          args: args as Record<string, unknown>,
          key,
          idempotencyKey: typeof idem === 'string' ? idem : undefined,
        }),
      };
    }
    default:
      return { error: { code: RPC.METHOD_NOT_FOUND, message: `Method not found: ${method.slice(0, 64)}` } };
  }
}

// No Origin check (the spec's guard against DNS rebinding of local servers): every request must carry the API key,
// which a page in a browser does not have and cannot make the browser add, and /mcp answers no CORS preflight.
async function handle(ctx: Koa.Context, s: Services): Promise<void> {
  const key = keyOf(ctx);
  const who = await identify(ctx, s, key);
  if ('code' in who) return refuseKey(ctx, who);
  const problem = transportProblem(ctx);
  if (problem) return send(ctx, problem[0], rpcError(null, problem[1]));
  await parseJson(ctx, async () => undefined);
  if (ctx.state.mcpBodyError) {
    const [status, error] = bodyProblem(ctx.state.mcpBodyError as Error);
    return send(ctx, status, rpcError(null, error));
  }
  const msg = classify((ctx.request as { body?: unknown }).body);
  if (msg.kind === 'invalid') return send(ctx, 400, rpcError(msg.id, msg.error));
  if (msg.kind === 'notification') return send(ctx, 202, null);
  const id: JsonRpcId = msg.id;
  ctx.state.mcpId = id;
  const outcome = await dispatch(ctx, s, key!, who, msg.method, msg.params);
  send(ctx, 200, 'error' in outcome ? rpcError(id, outcome.error) : rpcResult(id, outcome.result));
}

/** App-level, before the shared body parser: /mcp reads its own body so a parse failure is a JSON-RPC error. */
export function mcpEndpoint(s: Services): Koa.Middleware {
  return async (ctx, next) => {
    if (ctx.path !== MCP_PATH) return next();
    if (ctx.method !== 'POST') {
      ctx.set('Allow', 'POST');
      throw new ApiError(
        'METHOD_NOT_ALLOWED',
        `${ctx.method} ${MCP_PATH} is not allowed: this MCP server is stateless (no SSE stream, no sessions); use POST.`,
      );
    }
    try {
      await handle(ctx, s);
    } catch (err) {
      failed(ctx, s, err);
    }
  };
}

/**
 * A fault while answering (the database down or hung, a bug) is still a JSON-RPC error, never the /api envelope:
 * 503 with Retry-After while the database is unavailable, else 500. The details go to the log only.
 */
function failed(ctx: Koa.Context, s: Services, err: unknown): void {
  const unavailable = isDatabaseUnavailable(err);
  s.logger.error('mcp request failed', {
    request_id: ctx.state.requestId,
    reason: (err as Error).stack ?? String(err),
  });
  const code = unavailable ? 'UNAVAILABLE' : 'INTERNAL';
  const locale = callerLocale(ctx.get('accept-language') || undefined);
  if (unavailable) ctx.set('Retry-After', '5');
  const id = (ctx.state.mcpId as JsonRpcId | undefined) ?? null;
  send(
    ctx,
    statusOf(code),
    rpcError(id, {
      code: RPC.INTERNAL_ERROR,
      message: localizedMessage(code, undefined, locale),
      data: { code, hint: ERROR_TEXT[code][locale].hint, request_id: ctx.state.requestId },
    }),
  );
}
