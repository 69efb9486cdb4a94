// Payment notifications that fail verification prove nothing, and anyone can send them (instance ids are short and
// shown to every user), so one must cost O(1) storage per address and minute, never its body:
// - counted per address group, instance and minute (core/store/refused-log.ts) and in the metrics;
// - one sample per instance and minute goes to the payment log, as a short prefix and the body's SHA-256, so an
//   operator can still see what a misconfigured provider sends;
// - a per-address budget of refusals (state/address-budget.ts): past it the address is answered 429 RATE_LIMITED
//   with Retry-After before its body is read or verified;
// - the warning about it is written at most once a minute, with the number of lines left out.
import { createHash } from 'node:crypto';
import type { Context } from 'koa';
import { logPayment } from '../../billing/payments/payment-log.js';
import { clientIpOf } from '../../http/client-ip.js';
import { addressGroup } from '../../http/connection-limits.js';
import { ApiError } from '../../http/errors.js';
import { throttledLine } from '../../kernel/log-throttle.js';
import type { Services } from '../../services.js';

/** Bytes of a refused body kept in its sample row. */
export const SAMPLE_PREFIX_BYTES = 256;
const MINUTE_MS = 60_000;
const THROTTLED = 'Too many refused payment notifications from this address.';

/** The first bytes of a refused body (NUL made visible: PostgreSQL text cannot hold it), then its hash and size. */
export function refusedSample(raw: Buffer): string {
  const prefix = raw.subarray(0, SAMPLE_PREFIX_BYTES).toString('utf8').replaceAll('\0', '\\0');
  const hash = createHash('sha256').update(raw).digest('hex');
  return `${prefix}${raw.length > SAMPLE_PREFIX_BYTES ? '…' : ''} [sha256 ${hash}, ${raw.length} bytes]`;
}

export interface NotifyRefusals {
  /** Throws 429 when this address has spent its budget of refused notifications (before the body is read). */
  check(ctx: Context, instance: string): void;
  /** A notification that failed verification: counted, sampled at most once a minute, logged at most once. */
  refuse(ctx: Context, e: { instance: string; reason: string; raw: Buffer; status: number }): Promise<void>;
}

export function notifyRefusals(s: Services): NotifyRefusals {
  const warn = throttledLine(s.logger, 'warn', 'payment notification refused');
  /** Instance -> the minute its last sample was written. */
  const sampled = new Map<string, number>();

  const throttle = (ctx: Context, instance: string, group: string, wait: number): never => {
    s.refused.log.count(refusal(group, instance, 'RATE_LIMITED', 429));
    s.metrics.refusedNotification(instance, 'throttled');
    ctx.set('Retry-After', String(wait));
    throw new ApiError('RATE_LIMITED', THROTTLED);
  };

  return {
    check(ctx, instance) {
      const group = addressGroup(clientIpOf(ctx));
      const wait = s.refused.notifyBudget.wait(group);
      if (wait > 0) throttle(ctx, instance, group, wait);
    },
    async refuse(ctx, { instance, reason, raw, status }) {
      const ip = clientIpOf(ctx);
      const group = addressGroup(ip);
      const wait = s.refused.notifyBudget.take(group);
      if (wait > 0) throttle(ctx, instance, group, wait);
      s.refused.log.count(refusal(group, instance, 'REJECTED', status));
      s.metrics.refusedNotification(instance, 'rejected');
      warn({ instance, reason, address: group });
      const now = Date.now();
      const minute = now - (now % MINUTE_MS);
      if (sampled.get(instance) === minute) return;
      sampled.set(instance, minute);
      await logPayment(s.store.db, {
        instance,
        source: 'notify',
        httpMethod: ctx.method,
        clientIp: ip,
        orderId: null,
        verified: false,
        outcome: `rejected: ${reason}`,
        raw: refusedSample(raw),
      });
    },
  };
}

function refusal(source: string, instance: string, code: string, status: number) {
  return { kind: 'notify' as const, source, userId: null, keyId: null, target: instance, code, status };
}
