// The handlers of every console route group (core/console/contract/index.ts), bound: a group without its
// handlers, or handlers without their group, does not compile.
import type { Services } from '../../services.js';
import type { CONSOLE_GROUPS } from '../contract/index.js';
import { accountRoutes } from './account.js';
import { alertRoutes } from './alerts.js';
import { canaryRoutes } from './canaries.js';
import { catalogueRoutes } from './catalogue.js';
import { exportRoutes } from './exports.js';
import { keyRoutes } from './keys.js';
import type { BoundRoute } from './mount-routes.js';
import { usageRoutes } from './usage.js';
import { operatorWebhookRoutes, webhookRoutes } from './webhooks.js';

const BINDERS: { [G in keyof typeof CONSOLE_GROUPS]: (s: Services) => BoundRoute[] } = {
  account: accountRoutes,
  keys: keyRoutes,
  catalogue: catalogueRoutes,
  alerts: alertRoutes,
  usage: usageRoutes,
  webhooks: webhookRoutes,
  operatorWebhooks: operatorWebhookRoutes,
  exports: exportRoutes,
  canaries: canaryRoutes,
};

export function consoleRoutes(s: Services): BoundRoute[] {
  return Object.values(BINDERS).flatMap((bind) => bind(s));
}
