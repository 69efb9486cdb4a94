// tools/call: the tool's arguments become the JSON body of POST /api/{name} and the call runs through the same
// pipeline as any /api call (key checks, limits, price, hold, plugin, capture, idempotency, call log). Its envelope
// is then read back into an MCP tool result: a success carries data as structuredContent and the charge in
// _meta and text; a refusal is an isError result with our error code, and like every failed /api call is free.
import type { IncomingHttpHeaders } from 'node:http';
import type { Context } from 'koa';
import { callerLocale } from '../http/envelope.js';
import { ERROR_TEXT, type ErrorCode, type TextLocale } from '../http/errors.js';
import { runCall } from '../pipeline/index.js';
import { beginCall } from '../pipeline/koa-door.js';
import { answerHeader } from '../pipeline/respond.js';
import type { Services } from '../services.js';

interface TextContent {
  type: 'text';
  text: string;
}

export interface ToolResult {
  content: TextContent[];
  structuredContent?: Record<string, unknown>;
  isError?: true;
  _meta: Record<string, unknown>;
}

interface Envelope {
  success: boolean;
  data?: unknown;
  error?: { code: string; message: string };
  deducted: number;
  remaining?: number;
  cached?: boolean;
  request_id: string;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export interface ToolCallRequest {
  name: string;
  args: Record<string, unknown>;
  /** The caller's key, whichever header it came in (the pipeline reads X-API-Key). */
  key: string;
  /** From params._meta.idempotency_key when the POST carries no Idempotency-Key header. */
  idempotencyKey?: string;
}

function resultOf(env: Envelope, replayed: boolean, retryAfter: string, locale: TextLocale): ToolResult {
  const meta: Record<string, unknown> = {
    deducted: env.deducted,
    remaining: env.remaining,
    request_id: env.request_id,
  };
  if (replayed) meta.idempotent_replayed = true;
  if (!env.success) {
    const error: Record<string, unknown> = { ...env.error };
    if (retryAfter) error.retry_after = Number(retryAfter);
    // What to do about it, in the caller's language: an agent can act on it (top up, slow down, fix an argument).
    const text = ERROR_TEXT[env.error?.code as ErrorCode] as (typeof ERROR_TEXT)[ErrorCode] | undefined;
    if (text) error.hint = text[locale].hint;
    meta.error = error;
    const body = JSON.stringify({ error, deducted: 0, remaining: env.remaining, request_id: env.request_id });
    return { content: [{ type: 'text', text: body }], isError: true, _meta: meta };
  }
  meta.cached = env.cached;
  const charge = chargeText(env, replayed, locale);
  const result: ToolResult = {
    content: [
      { type: 'text', text: JSON.stringify(env.data) },
      { type: 'text', text: charge },
    ],
    _meta: meta,
  };
  // MCP's structuredContent is an object; any other result shape travels in the text content only.
  if (isPlainObject(env.data)) result.structuredContent = env.data;
  return result;
}

/** The charge line in the caller's language; a replay of an Idempotency-Key's answer was not charged again. */
function chargeText(env: Envelope, replayed: boolean, locale: TextLocale): string {
  if (replayed)
    return locale === 'zh'
      ? '这是同一 Idempotency-Key 首次调用结果的重放：本次未扣费。'
      : "A replay of the first call's answer for this Idempotency-Key: nothing was charged this time.";
  const balance = env.remaining === undefined ? '' : String(env.remaining);
  if (locale === 'zh') return `扣费 ${env.deducted} TOKEN${balance ? `，余额 ${balance} TOKEN` : ''}。`;
  return `Charged ${env.deducted} TOKEN${balance ? `; balance ${balance} TOKEN` : ''}.`;
}

/** Headers of the /api answer that become fields of the tool result instead. */
const MOVED_INTO_RESULT = new Set(['Retry-After', 'Idempotent-Replayed']);

export async function callTool(ctx: Context, s: Services, req: ToolCallRequest): Promise<ToolResult> {
  const call = beginCall(ctx, s);
  call.method = 'POST';
  call.path = `/api/${encodeURIComponent(req.name)}`;
  call.query = {};
  call.body = req.args;
  call.bodyKind = 'json';
  const headers: IncomingHttpHeaders = { ...ctx.headers, 'x-api-key': req.key };
  if (req.idempotencyKey !== undefined && headers['idempotency-key'] === undefined)
    headers['idempotency-key'] = req.idempotencyKey;
  call.headers = headers;
  const answer = await runCall(call, s);
  // The JSON-RPC answer replaces the /api envelope. The rate-limit and timing headers go on the HTTP response; the
  // call-specific ones move into the result.
  for (let i = 0; i < answer.headers.length; i += 2)
    if (!MOVED_INTO_RESULT.has(answer.headers[i])) ctx.set(answer.headers[i], answer.headers[i + 1]);
  return resultOf(
    JSON.parse(answer.body) as Envelope,
    answerHeader(answer, 'Idempotent-Replayed') === 'true',
    answerHeader(answer, 'Retry-After') ?? '',
    callerLocale(call.headers['accept-language']),
  );
}
