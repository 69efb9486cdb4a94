// The handlers of every console route group (core/console/contract/index.ts), bound: a group without its
// handlers, or handlers without their group, does not compile.
import type { Services } from '../../services.js';
import type { CONSOLE_GROUPS } from '../contract/index.js';
import { accountRoutes } from './account.js';
import { adminInsightRoutes } from './admin-insight.js';
import { adminOrderRoutes } from './admin-orders.js';
import { adminPaymentRoutes } from './admin-payments.js';
import { adminUserRoutes } from './admin-users.js';
import { alertRoutes } from './alerts.js';
import { authRoutes } from './auth.js';
import { canaryRoutes } from './canaries.js';
import { catalogueRoutes } from './catalogue.js';
import { exportRoutes } from './exports.js';
import { keyRoutes } from './keys.js';
import type { BoundRoute } from './mount-routes.js';
import { orderRoutes } from './orders.js';
import { securityRoutes } from './security.js';
import { usageRoutes } from './usage.js';
import { operatorWebhookRoutes, webhookRoutes } from './webhooks.js';

const BINDERS: { [G in keyof typeof CONSOLE_GROUPS]: (s: Services) => BoundRoute[] } = {
  account: accountRoutes,
  keys: keyRoutes,
  catalogue: catalogueRoutes,
  alerts: alertRoutes,
  auth: authRoutes,
  security: securityRoutes,
  orders: orderRoutes,
  adminPayments: adminPaymentRoutes,
  usage: usageRoutes,
  webhooks: webhookRoutes,
  operatorWebhooks: operatorWebhookRoutes,
  exports: exportRoutes,
  canaries: canaryRoutes,
  adminOrders: adminOrderRoutes,
  adminInsight: adminInsightRoutes,
  adminUsers: adminUserRoutes,
};

export function consoleRoutes(s: Services): BoundRoute[] {
  return Object.values(BINDERS).flatMap((bind) => bind(s));
}
