// GET|POST /pay/notify/<instance>: provider notifications. Runs before the body parser (the signature covers
// the exact raw bytes), verifies, logs the raw notification, settles, and only then acknowledges, in the
// provider's own reply format. A bad signature or an order we cannot credit gets the provider's "fail" so it
// retries; a duplicate gets "success" so it stops.
import type Koa from 'koa';
import { type NotifyRequest, orderIdOf, SignatureError } from '../../billing/payment-provider.js';
import { logPayment } from '../../billing/payments/payment-log.js';
import { type SettleDeps, settle } from '../../billing/payments/settle-payment.js';
import { clientIpOf } from '../../http/client-ip.js';
import type { Services } from '../../services.js';
import { notifyRefusals } from './refused-notify.js';

const PATH = /^\/pay\/notify\/([a-z0-9][a-z0-9_-]{0,31})$/;
const MAX_BODY = 64 * 1024;

class TooLarge extends Error {}

async function readRaw(ctx: Koa.Context): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new TooLarge();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

export function settleDeps(s: Services): SettleDeps {
  return {
    db: s.store.db,
    registry: () => s.registry.current,
    payments: s.payments,
    logger: s.logger,
    invalidatePlan: (userId) => s.plans.invalidate(userId),
  };
}

function single(query: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(query)) if (v !== undefined) out[k] = Array.isArray(v) ? v[0] : v;
  return out;
}

export function paymentNotifyMiddleware(s: Services): Koa.Middleware {
  const refusals = notifyRefusals(s);
  return async (ctx, next) => {
    const m = PATH.exec(ctx.path);
    if (!m) return next();
    if (ctx.method !== 'GET' && ctx.method !== 'POST') {
      ctx.status = 405;
      ctx.set('Allow', 'GET, POST');
      return;
    }
    const provider = s.payments.providers.get(m[1]);
    if (!provider || provider.kind === 'manual') {
      ctx.status = 404;
      ctx.type = 'text/plain';
      ctx.body = 'unknown payment instance';
      return;
    }
    // An address that sent too many notifications failing verification waits (429), unread and unverified.
    refusals.check(ctx, provider.id);
    let rawBody: Buffer;
    try {
      rawBody = ctx.method === 'POST' ? await readRaw(ctx) : Buffer.alloc(0);
    } catch (err) {
      if (!(err instanceof TooLarge)) throw err;
      ctx.status = 413;
      ctx.body = 'too large';
      return;
    }
    const req: NotifyRequest = {
      method: ctx.method,
      headers: Object.fromEntries(Object.entries(ctx.headers).map(([k, v]) => [k, Array.isArray(v) ? v[0] : v])),
      query: single(ctx.query),
      rawBody,
    };
    const raw = ctx.method === 'POST' ? rawBody.toString('utf8') : ctx.querystring;
    const base = {
      instance: provider.id,
      source: 'notify' as const,
      httpMethod: ctx.method,
      clientIp: clientIpOf(ctx),
      raw,
    };
    let reply: ReturnType<typeof provider.ack>;
    let verified = false;
    try {
      const result = provider.verifyNotification(req);
      verified = true;
      const settlement = await settle(settleDeps(s), provider, result);
      await logPayment(s.store.db, {
        ...base,
        orderId: settlement.order ? Number(settlement.order.id) : orderIdOf(result.outTradeNo),
        verified: true,
        state: result.state,
        outcome: settlement.outcome,
        eventId: result.eventId,
      });
      reply = provider.ack(settlement.ack);
    } catch (err) {
      if (verified && !(err instanceof SignatureError)) {
        // A database fault: no ack, so the provider retries later.
        s.logger.error('payment notification failed', { instance: provider.id, reason: (err as Error).message });
        await logPayment(s.store.db, { ...base, orderId: null, verified: false, outcome: 'error' }).catch(
          () => undefined,
        );
        reply = provider.ack(false);
        if (reply.status < 400 && provider.kind !== 'epay' && provider.kind !== 'alipay')
          reply = { ...reply, status: 500 };
      } else {
        // Unverified: counted and sampled, never stored whole (refused-notify.ts).
        reply = provider.ack(false);
        const raw = ctx.method === 'POST' ? rawBody : Buffer.from(ctx.querystring);
        await refusals.refuse(ctx, {
          instance: provider.id,
          reason: (err as Error).message,
          raw,
          status: reply.status,
        });
      }
    }
    ctx.status = reply.status;
    ctx.type = reply.contentType;
    ctx.body = reply.body;
  };
}
