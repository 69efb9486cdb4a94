// Stage: the only place that writes status, headers and body of an /api call.
import type { Context } from 'koa';
import { balanceOf } from '../billing/ledger.js';
import { memoryHoldsOf } from '../billing/memory-holds.js';
import { callerLocale, failureBody } from '../http/envelope.js';
import { type Denial, statusOf } from '../http/errors.js';
import { toToken } from '../kernel/money.js';
import type { Services } from '../services.js';
import type { ApiCall } from './call.js';

async function remainingOf(call: ApiCall, s: Services): Promise<number | undefined> {
  if (call.balanceAfter !== undefined) return call.balanceAfter;
  if (!call.identity) return undefined;
  try {
    // SQLite: the balance this process committed or read within the last second (no query per free call).
    if (s.store.dialect === 'sqlite') return await memoryHoldsOf(s.store.db).balance(call.identity.userId);
    return (await balanceOf(s.store.db, call.identity.userId)).balance;
  } catch {
    // The answer must go out even when the database is what failed; `remaining` is then simply absent.
    return undefined;
  }
}

/**
 * The success envelope (same fields and order as successBody) around the result's JSON text, which was
 * serialised once before capture: the bytes are spliced in, never parsed and serialised again.
 */
export function successText(call: ApiCall, remainingMicro: number): string {
  return (
    `{"success":true,"data":${call.dataJson ?? 'null'},"deducted":${toToken(call.charged)},` +
    `"remaining":${toToken(remainingMicro)},"cached":${call.cached},"request_id":${JSON.stringify(call.requestId)}}`
  );
}

export async function respond(
  ctx: Context,
  call: ApiCall,
  s: Services,
  denial: Denial | undefined,
): Promise<{ status: number; body: string }> {
  let status: number;
  let body: string;
  if (call.idempotency?.replay) {
    ({ status, body } = call.idempotency.replay);
    ctx.set('Idempotent-Replayed', 'true');
  } else if (denial) {
    status = statusOf(denial.code);
    body = JSON.stringify(
      failureBody(denial, call.requestId, await remainingOf(call, s), callerLocale(call.headers['accept-language'])),
    );
    if (denial.retryAfter !== undefined) ctx.set('Retry-After', String(denial.retryAfter));
  } else {
    status = 200;
    body = call.bodyOut ?? successText(call, (await remainingOf(call, s)) ?? 0);
  }
  if (call.rate) {
    ctx.set('X-RateLimit-Limit', String(call.rate.limit));
    ctx.set('X-RateLimit-Remaining', String(call.rate.remaining));
    ctx.set('X-RateLimit-Reset', String(call.rate.resetSeconds));
  }
  for (const [name, value] of Object.entries(call.headersOut)) ctx.set(name, value);
  const totalMs = Number(process.hrtime.bigint() - call.startedNs) / 1e6;
  const timing = [`total;dur=${totalMs.toFixed(2)}`];
  if (call.pluginMs !== undefined) timing.push(`plugin;dur=${call.pluginMs.toFixed(2)}`);
  if (call.cached) timing.push('cache;desc="hit"');
  ctx.set('Server-Timing', timing.join(', '));
  ctx.set('Cache-Control', 'no-store');
  ctx.status = status;
  ctx.type = 'application/json; charset=utf-8';
  ctx.body = body;
  return { status, body };
}
