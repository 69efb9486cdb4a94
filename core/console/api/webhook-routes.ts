// /console/api/webhooks (a user's endpoints) and /console/api/admin/webhooks (operator-level endpoints, which
// receive every user's events): create (secret shown once), list, enable/disable, delete, delivery log, replay.
import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { ApiError } from '../../http/errors.js';
import {
  createEndpoint,
  deleteEndpoint,
  endpointEvents,
  findEndpoint,
  listEndpoints,
  MAX_ENDPOINTS_PER_OWNER,
  setEndpointStatus,
  WEBHOOK_KINDS,
  type WebhookEndpoint,
  WebhookTargetError,
} from '../../notify/webhooks/endpoints.js';
import { isWebhookEvent, WEBHOOK_EVENTS, type WebhookEvent } from '../../notify/webhooks/events.js';
import { listDeliveries, replayDelivery, type WebhookDelivery } from '../../notify/webhooks/queue.js';
import type { Services } from '../../services.js';
import { audit } from './audit.js';
import { requireAdmin, requireUser, userOf } from './auth.js';
import { bodyOf, idParam, invalid, queryInt, queryOf, reqEnum, reqString } from './input.js';
import { iso } from './present.js';

export function presentEndpoint(e: WebhookEndpoint): Record<string, unknown> {
  return {
    id: Number(e.id),
    url: e.url,
    kind: e.kind,
    events: endpointEvents(e),
    status: e.status,
    bot_signed: e.bot_secret !== null,
    created_at: iso(e.created_at),
  };
}

export function presentDelivery(d: WebhookDelivery): Record<string, unknown> {
  return {
    id: Number(d.id),
    message_id: d.message_id,
    event: d.event,
    status: d.status,
    attempts: Number(d.attempts),
    next_at: d.status === 'pending' ? iso(d.next_at) : null,
    last_status: d.last_status,
    last_error: d.last_error,
    created_at: iso(d.created_at),
    delivered_at: iso(d.delivered_at),
    payload: JSON.parse(d.payload) as unknown,
  };
}

function parseEvents(v: unknown): WebhookEvent[] {
  if (!Array.isArray(v) || v.length === 0 || !v.every(isWebhookEvent))
    throw invalid(`'events' must be a non-empty list of: ${WEBHOOK_EVENTS.join(', ')}.`);
  return [...new Set(v)];
}

/** The same routes for a user (own endpoints) and the operator (user_id null), under two prefixes. */
function mount(
  router: Router,
  s: Services,
  base: string,
  guard: Middleware,
  ownerOf: (ctx: Context) => number | null,
): void {
  const db = s.store.db;
  const endpointOr404 = async (ctx: Context): Promise<WebhookEndpoint> => {
    const e = await findEndpoint(db, ownerOf(ctx), idParam(ctx.params.id, 'webhook'));
    if (!e) throw new ApiError('RESOURCE_NOT_FOUND', `There is no webhook ${String(ctx.params.id).slice(0, 20)}.`);
    return e;
  };
  const subject = (ctx: Context): number | null => ownerOf(ctx);

  router.get(base, guard, async (ctx) => {
    ctx.body = { webhooks: (await listEndpoints(db, ownerOf(ctx))).map(presentEndpoint), events: WEBHOOK_EVENTS };
  });

  router.post(base, guard, async (ctx) => {
    const b = bodyOf(ctx, ['url', 'kind', 'events', 'bot_secret']);
    const url = reqString(b, 'url', 2000).trim();
    const kind = b.kind === undefined ? 'standard' : reqEnum(b, 'kind', WEBHOOK_KINDS);
    const events = parseEvents(b.events);
    const botSecret = b.bot_secret === undefined || b.bot_secret === null ? null : reqString(b, 'bot_secret', 200);
    if (botSecret && kind !== 'dingtalk' && kind !== 'feishu')
      throw invalid(`'bot_secret' applies to dingtalk and feishu bots only.`);
    try {
      await s.webhooks.checkUrl(url);
    } catch (err) {
      if (err instanceof WebhookTargetError) throw invalid(`'url': ${err.message}`);
      throw err;
    }
    if ((await listEndpoints(db, ownerOf(ctx))).length >= MAX_ENDPOINTS_PER_OWNER) {
      throw new ApiError('CONFLICT', `At most ${MAX_ENDPOINTS_PER_OWNER} webhooks; delete one first.`);
    }
    const { endpoint, secret } = await createEndpoint(db, { userId: ownerOf(ctx), url, kind, events, botSecret });
    await audit(ctx, s, {
      action: 'webhook.create',
      targetType: 'webhook',
      targetId: Number(endpoint.id),
      subjectUserId: subject(ctx),
      detail: { url, kind, events },
    });
    ctx.status = 201;
    ctx.body = { webhook: presentEndpoint(endpoint), secret };
  });

  router.patch(`${base}/:id`, guard, async (ctx) => {
    const e = await endpointOr404(ctx);
    const status = reqEnum(bodyOf(ctx, ['status']), 'status', ['active', 'disabled'] as const);
    await setEndpointStatus(db, Number(e.id), status);
    await audit(ctx, s, {
      action: 'webhook.update',
      targetType: 'webhook',
      targetId: Number(e.id),
      subjectUserId: subject(ctx),
      detail: { status: { from: e.status, to: status } },
    });
    ctx.body = { webhook: presentEndpoint({ ...e, status }) };
  });

  router.delete(`${base}/:id`, guard, async (ctx) => {
    const e = await endpointOr404(ctx);
    await deleteEndpoint(db, Number(e.id));
    await audit(ctx, s, {
      action: 'webhook.delete',
      targetType: 'webhook',
      targetId: Number(e.id),
      subjectUserId: subject(ctx),
      detail: { url: e.url },
    });
    ctx.body = { deleted: true, id: Number(e.id) };
  });

  router.get(`${base}/:id/deliveries`, guard, async (ctx) => {
    const e = await endpointOr404(ctx);
    const limit = queryInt(ctx, 'limit', 1, 200, 50);
    const before =
      queryOf(ctx, 'before') === undefined ? undefined : queryInt(ctx, 'before', 1, Number.MAX_SAFE_INTEGER, 0);
    const rows = await listDeliveries(db, Number(e.id), limit, before);
    ctx.body = {
      deliveries: rows.map(presentDelivery),
      next_before: rows.length === limit ? Number(rows[rows.length - 1].id) : null,
    };
  });

  router.post(`${base}/:id/deliveries/:delivery/replay`, guard, async (ctx) => {
    const e = await endpointOr404(ctx);
    const deliveryId = idParam(ctx.params.delivery, 'delivery');
    const row = await db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('id', '=', deliveryId)
      .where('endpoint_id', '=', Number(e.id))
      .executeTakeFirst();
    if (!row || !(await replayDelivery(db, deliveryId, Date.now())))
      throw new ApiError('RESOURCE_NOT_FOUND', `There is no delivery ${deliveryId} of webhook ${Number(e.id)}.`);
    await audit(ctx, s, {
      action: 'webhook.replay',
      targetType: 'webhook_delivery',
      targetId: deliveryId,
      subjectUserId: subject(ctx),
      detail: { webhook_id: Number(e.id) },
    });
    ctx.status = 202;
    ctx.body = { replayed: true, id: deliveryId };
  });
}

export function webhookRoutes(router: Router, s: Services): void {
  mount(router, s, '/console/api/webhooks', requireUser(s), (ctx) => userOf(ctx).id);
  mount(router, s, '/console/api/admin/webhooks', requireAdmin(s), () => null);
}
