// The user's low-balance line (TOKEN), plan-quota percentage and mail switch. Webhook and chat-bot channels are
// webhooks subscribed to balance.low (/console/api/webhooks).
import { Alerts } from './components.js';
import { defineRoutes } from './define.js';
import { answer, body, nullable, positiveTokens, ref, Type } from './schema.js';

const alerts = answer({ alerts: ref('Alerts', Alerts) });

export const ALERTS = defineRoutes({
  alerts: {
    method: 'GET',
    path: '/console/api/alerts',
    summary: 'Low-balance alert settings',
    auth: 'user',
    responses: { 200: alerts },
  },
  setAlerts: {
    method: 'PUT',
    path: '/console/api/alerts',
    summary: 'Set the low-balance line (TOKEN), quota percentage and mail switch',
    auth: 'user',
    body: body({
      balance_threshold: Type.Optional(
        nullable(positiveTokens("'balance_threshold' must be a positive TOKEN amount, or null for no alert.")),
      ),
      quota_percent: Type.Optional(nullable(Type.Integer({ minimum: 1, maximum: 99 }))),
      email: Type.Optional(Type.Boolean()),
    }),
    responses: { 200: alerts },
  },
});
