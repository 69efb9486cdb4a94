// Webhook endpoints, their delivery log and replay: a user's own under /console/api/webhooks (operationIds my*),
// the operator's under /console/api/admin/webhooks (operator*: endpoints without a user, which receive every
// user's events). Both groups come from one builder, so they stay the same routes. The signing secret is answered
// once, at creation.
import { Webhook, WebhookDelivery } from './components.js';
import { defineRoutes, type RouteDef } from './define.js';
import {
  answer,
  as,
  body,
  constant,
  idQuery,
  list,
  nextBefore,
  nullable,
  oneOf,
  params,
  pathId,
  query,
  ref,
  rInt,
  rStr,
  Type,
  text,
  upTo,
} from './schema.js';

/** The events an endpoint may subscribe to. */
export const SUBSCRIBABLE_EVENTS = [
  'order.paid',
  'order.pending',
  'balance.low',
  'plan.expiring',
  'key.expiring',
  'upstream.disabled',
] as const;
const EVENTS_ERROR = `'events' must be a non-empty list of: ${SUBSCRIBABLE_EVENTS.join(', ')}.`;

const newWebhook = body({
  url: text(2000, {
    format: 'uri',
    description: 'public http(s) URL; private and reserved addresses are refused',
    'x-rule': 'an absolute http(s) URL without a user name, whose host resolves to public addresses only',
  }),
  kind: Type.Optional(
    oneOf(['standard', 'wecom', 'dingtalk', 'feishu'] as const, {
      description: 'standard: Standard Webhooks signed JSON (default); the others post a chat-bot text message',
    }),
  ),
  events: as<Array<(typeof SUBSCRIBABLE_EVENTS)[number]>>({
    type: 'array',
    minItems: 1,
    items: { enum: [...SUBSCRIBABLE_EVENTS], 'x-error': EVENTS_ERROR },
    'x-error': EVENTS_ERROR,
  }),
  bot_secret: Type.Optional(
    nullable(
      text(200, { description: 'DingTalk / Feishu bot signing secret', 'x-rule': 'only with kind dingtalk or feishu' }),
    ),
  ),
});

const webhook = ref('Webhook', Webhook);
const id = pathId('webhook');
const byId = { id: '$response.body#/webhook/id' };

/** The six routes of one owner's webhooks under `prefix`, their operationIds prefixed with `who`. */
function webhookRoutes<const W extends string, const A extends 'user' | 'admin'>(
  who: W,
  prefix: string,
  auth: A,
  label: string,
) {
  const routes = {
    Webhooks: {
      method: 'GET',
      path: prefix,
      summary: `${label} webhooks`,
      auth,
      responses: { 200: answer({ webhooks: list(webhook), events: list(rStr) }) },
    },
    CreateWebhook: {
      method: 'POST',
      path: prefix,
      summary: `Add a ${label.toLowerCase()} webhook (signing secret shown once)`,
      auth,
      body: newWebhook,
      responses: { 201: answer({ webhook, secret: as<string>({ type: 'string', description: 'shown once' }) }) },
      links: {
        [`${who}UpdateWebhook`]: {
          operationId: `${who}UpdateWebhook`,
          parameters: byId,
          description: 'Enable or disable it',
        },
        [`${who}WebhookDeliveries`]: {
          operationId: `${who}WebhookDeliveries`,
          parameters: byId,
          description: 'Its delivery log',
        },
        [`${who}DeleteWebhook`]: { operationId: `${who}DeleteWebhook`, parameters: byId, description: 'Delete it' },
      },
    },
    UpdateWebhook: {
      method: 'PATCH',
      path: `${prefix}/:id`,
      summary: 'Enable or disable a webhook',
      auth,
      params: params({ id }),
      body: body({ status: oneOf(['active', 'disabled'] as const) }),
      responses: { 200: answer({ webhook }) },
    },
    DeleteWebhook: {
      method: 'DELETE',
      path: `${prefix}/:id`,
      summary: 'Delete a webhook and its queued deliveries',
      auth,
      params: params({ id }),
      responses: { 200: answer({ deleted: constant(true), id: rInt }) },
    },
    WebhookDeliveries: {
      method: 'GET',
      path: `${prefix}/:id/deliveries`,
      summary: 'Delivery log, newest first',
      auth,
      params: params({ id }),
      query: query({
        limit: upTo(200, 'page size, 1-200'),
        before: idQuery('id cursor: next_before of the previous page'),
      }),
      responses: {
        200: answer({ deliveries: list(ref('WebhookDelivery', WebhookDelivery)), next_before: nextBefore }),
      },
    },
    ReplayDelivery: {
      method: 'POST',
      path: `${prefix}/:id/deliveries/:delivery/replay`,
      summary: 'Send a delivery again (same message id)',
      auth,
      params: params({ id, delivery: pathId('delivery') }),
      responses: { 202: answer({ replayed: constant(true), id: rInt }) },
    },
  } satisfies Record<string, Omit<RouteDef, 'id'>>;
  return defineRoutes(prefixed(who, routes));
}

type RouteSet = ReturnType<typeof webhookRoutes<'', 'user' | 'admin'>>;
/** One owner's webhook routes, named without the owner's prefix (their handlers are written once, for both). */
export type WebhookRouteSet = { [K in keyof RouteSet]: Omit<RouteSet[K], 'id'> & { id: string } };

/** `entries` with each key prefixed by `who`. */
export function prefixed<const W extends string, T extends Record<string, unknown>>(
  who: W,
  entries: T,
): { [K in keyof T & string as `${W}${K}`]: T[K] } {
  return Object.fromEntries(Object.entries(entries).map(([k, v]) => [`${who}${k}`, v])) as {
    [K in keyof T & string as `${W}${K}`]: T[K];
  };
}

export const WEBHOOKS = webhookRoutes('my', '/console/api/webhooks', 'user', 'My');
export const OPERATOR_WEBHOOKS = webhookRoutes('operator', '/console/api/admin/webhooks', 'admin', 'Operator');
