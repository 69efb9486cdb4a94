// Webhook endpoints (core/console/contract/webhooks.ts): a user's own, and the operator's (user_id null, every
// user's events). The handlers are written once and bound to both groups; only whose endpoints they act on
// differs. Create (secret shown once), list, enable/disable, delete, delivery log, replay.
import type { User } from '../../accounts/users.js';
import { ApiError } from '../../http/errors.js';
import {
  createEndpoint,
  deleteEndpoint,
  endpointEvents,
  findEndpoint,
  listEndpoints,
  MAX_ENDPOINTS_PER_OWNER,
  setEndpointStatus,
  type WebhookEndpoint,
  WebhookTargetError,
} from '../../notify/webhooks/endpoints.js';
import { WEBHOOK_EVENTS } from '../../notify/webhooks/events.js';
import { listDeliveries, replayDelivery, type WebhookDelivery } from '../../notify/webhooks/queue.js';
import type { Services } from '../../services.js';
import { audit } from '../api/audit.js';
import { iso } from '../api/present.js';
import type { WebhookDelivery as DeliveryAnswer, Webhook } from '../contract/components.js';
import type { RouteDef } from '../contract/define.js';
import { OPERATOR_WEBHOOKS, prefixed, WEBHOOKS, type WebhookRouteSet } from '../contract/webhooks.js';
import { invalid } from './input-checks.js';
import { type BoundRoute, type Handler, implement } from './mount-routes.js';

export function presentEndpoint(e: WebhookEndpoint): Webhook {
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

export function presentDelivery(d: WebhookDelivery): DeliveryAnswer {
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

type Handlers = { [K in keyof WebhookRouteSet]: Handler<WebhookRouteSet[K]> };

/** The routes' handlers for the endpoints `ownerOf` the caller owns (a user id, or null: the operator's). */
function webhookHandlers(s: Services, ownerOf: (user: User) => number | null): Handlers {
  const db = s.store.db;
  const endpointOr404 = async (user: User, id: number): Promise<WebhookEndpoint> => {
    const e = await findEndpoint(db, ownerOf(user), id);
    if (!e) throw new ApiError('RESOURCE_NOT_FOUND', `There is no webhook ${id}.`);
    return e;
  };

  return {
    Webhooks: async ({ user }) => ({
      webhooks: (await listEndpoints(db, ownerOf(user))).map(presentEndpoint),
      events: [...WEBHOOK_EVENTS],
    }),

    CreateWebhook: async ({ user, body }, ctx) => {
      const url = body.url.trim();
      const kind = body.kind ?? 'standard';
      const events = [...new Set(body.events)];
      const botSecret = body.bot_secret ?? null;
      if (botSecret && kind !== 'dingtalk' && kind !== 'feishu')
        throw invalid(`'bot_secret' applies to dingtalk and feishu bots only.`);
      try {
        await s.webhooks.checkUrl(url);
      } catch (err) {
        if (err instanceof WebhookTargetError) throw invalid(`'url': ${err.message}`);
        throw err;
      }
      const owner = ownerOf(user);
      if ((await listEndpoints(db, owner)).length >= MAX_ENDPOINTS_PER_OWNER) {
        throw new ApiError('CONFLICT', `At most ${MAX_ENDPOINTS_PER_OWNER} webhooks; delete one first.`);
      }
      const { endpoint, secret } = await createEndpoint(db, { userId: owner, url, kind, events, botSecret });
      await audit(ctx, s, {
        action: 'webhook.create',
        targetType: 'webhook',
        targetId: Number(endpoint.id),
        subjectUserId: owner,
        detail: { url, kind, events },
      });
      return { webhook: presentEndpoint(endpoint), secret };
    },

    UpdateWebhook: async ({ user, params, body: { status } }, ctx) => {
      const e = await endpointOr404(user, params.id);
      await setEndpointStatus(db, Number(e.id), status);
      await audit(ctx, s, {
        action: 'webhook.update',
        targetType: 'webhook',
        targetId: Number(e.id),
        subjectUserId: ownerOf(user),
        detail: { status: { from: e.status, to: status } },
      });
      return { webhook: presentEndpoint({ ...e, status }) };
    },

    DeleteWebhook: async ({ user, params }, ctx) => {
      const e = await endpointOr404(user, params.id);
      await deleteEndpoint(db, Number(e.id));
      await audit(ctx, s, {
        action: 'webhook.delete',
        targetType: 'webhook',
        targetId: Number(e.id),
        subjectUserId: ownerOf(user),
        detail: { url: e.url },
      });
      return { deleted: true as const, id: Number(e.id) };
    },

    WebhookDeliveries: async ({ user, params, query }) => {
      const e = await endpointOr404(user, params.id);
      const limit = query.limit ?? 50;
      const rows = await listDeliveries(db, Number(e.id), limit, query.before);
      return {
        deliveries: rows.map(presentDelivery),
        next_before: rows.length === limit ? Number(rows[rows.length - 1].id) : null,
      };
    },

    ReplayDelivery: async ({ user, params }, ctx) => {
      const e = await endpointOr404(user, params.id);
      const deliveryId = params.delivery;
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
        subjectUserId: ownerOf(user),
        detail: { webhook_id: Number(e.id) },
      });
      return { replayed: true as const, id: deliveryId };
    },
  };
}

/**
 * `handlers` under the group's operationIds (`who` + name). Both groups come from one builder
 * (core/console/contract/webhooks.ts), so each handler fits its route; only the literal operationIds differ,
 * which the handler types cannot see through.
 */
function bind<G extends Record<string, RouteDef>>(group: G, who: string, handlers: Handlers): BoundRoute[] {
  return implement(group, prefixed(who, handlers) as unknown as { [K in keyof G]: Handler<G[K]> });
}

export function webhookRoutes(s: Services): BoundRoute[] {
  return bind(
    WEBHOOKS,
    'my',
    webhookHandlers(s, (user) => user.id),
  );
}

export function operatorWebhookRoutes(s: Services): BoundRoute[] {
  return bind(
    OPERATOR_WEBHOOKS,
    'operator',
    webhookHandlers(s, () => null),
  );
}
