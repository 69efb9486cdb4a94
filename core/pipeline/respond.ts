// Stage: the only place that decides status, headers and body of an /api call. The answer is a plain value: both
// doors send it as is through the /api edge's writer (http/api-edge.ts).
import type { ApiAnswer } from '../http/api-edge.js';
import { callerLocale, failureBody } from '../http/envelope.js';
import { type Denial, statusOf } from '../http/errors.js';
import { after, type MaybePromise } from '../kernel/maybe-promise.js';
import { toToken } from '../kernel/money.js';
import type { Services } from '../services.js';
import type { AfterStage, ApiCall } from './call.js';

/**
 * Refusals of the key itself: a disabled, expired or wrong-IP key (or one that may not call this operation) must
 * not read the account's balance, so these answers carry no `remaining`.
 */
const KEY_REFUSALS = new Set<string>(['KEY_DISABLED', 'KEY_EXPIRED', 'IP_NOT_ALLOWED', 'OPERATION_NOT_ALLOWED']);

/** The balance for `remaining`; on SQLite usually known at once (no promise). */
function remainingOf(call: ApiCall, s: Services, denial?: Denial): MaybePromise<number | undefined> {
  if (denial && KEY_REFUSALS.has(denial.code)) return undefined;
  if (call.captured.balanceAfter !== undefined) return call.captured.balanceAfter;
  if (!call.identity) return undefined;
  // The answer must go out even when the database is what failed; `remaining` is then simply absent.
  const absent = (): undefined => undefined;
  try {
    // SQLite: the balance this process committed or read within the last second (no query per free call).
    const balance = s.money.remaining(call.identity.userId);
    return balance instanceof Promise ? balance.catch(absent) : balance;
  } catch {
    return absent();
  }
}

/**
 * The success envelope (same fields and order as successBody) around the result's JSON text, which was
 * serialised once before capture: the bytes are spliced in, never parsed and serialised again.
 */
export function successText(call: ApiCall, chargedMicro: number, remainingMicro: number): string {
  return (
    `{"success":true,"data":${call.dataJson ?? 'null'},"deducted":${toToken(chargedMicro)},` +
    `"remaining":${toToken(remainingMicro)},"cached":${call.cached},"request_id":${JSON.stringify(call.requestId)}}`
  );
}

/** One header of an answer, or undefined. */
export function answerHeader(answer: ApiAnswer, name: string): string | undefined {
  for (let i = 0; i < answer.headers.length; i += 2) if (answer.headers[i] === name) return answer.headers[i + 1];
  return undefined;
}

export function respond(call: ApiCall, s: Services, denial: Denial | undefined): MaybePromise<ApiAnswer> {
  if (call.idempotency?.replay) {
    const { status, body } = call.idempotency.replay;
    return answerOf(call, status, body, ['Idempotent-Replayed', 'true']);
  }
  if (denial) {
    return after(remainingOf(call, s, denial), (remaining) => {
      const locale = callerLocale(call.headers['accept-language']);
      const body = JSON.stringify(failureBody(denial, call.requestId, remaining, locale));
      return answerOf(
        call,
        statusOf(denial.code),
        body,
        denial.retryAfter === undefined ? [] : ['Retry-After', String(denial.retryAfter)],
      );
    });
  }
  const { bodyOut, charged } = call.captured;
  if (bodyOut !== undefined) return answerOf(call, 200, bodyOut, []);
  return after(remainingOf(call, s), (remaining) =>
    answerOf(call, 200, successText(call, charged, remaining ?? 0), []),
  );
}

/** After-charge stage: the answer, onto the call's end (status and body for the entries settled after it). */
export const respondStage: AfterStage = (call, s, end) =>
  after(respond(call, s, end.denial), (answer) => {
    if (end.denial) answer.denial = end.denial;
    end.answer = answer;
    end.status = answer.status;
    end.body = answer.body;
  });

/** The answer: its status and body, with the headers every answer of a call carries after `headers`. */
function answerOf(call: ApiCall, status: number, body: string, headers: string[]): ApiAnswer {
  if (call.rate) {
    headers.push(
      'X-RateLimit-Limit',
      String(call.rate.limit),
      'X-RateLimit-Remaining',
      String(call.rate.remaining),
      'X-RateLimit-Reset',
      String(call.rate.resetSeconds),
    );
  }
  for (const name in call.headersOut) headers.push(name, call.headersOut[name]);
  const totalMs = Number(process.hrtime.bigint() - call.startedNs) / 1e6;
  let timing = `total;dur=${totalMs.toFixed(2)}`;
  if (call.pluginMs !== undefined) timing += `, plugin;dur=${call.pluginMs.toFixed(2)}`;
  if (call.cached) timing += ', cache;desc="hit"';
  headers.push('Server-Timing', timing, 'Cache-Control', 'no-store');
  return { status, headers, body };
}
