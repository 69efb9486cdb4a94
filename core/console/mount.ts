// Console API routes (/console/api/*) and the web console (/console/) on the app's router.
// Each area registers its own routes; this file only lists them.
import type Router from '@koa/router';
import type { Services } from '../services.js';
import { adminCanaryRoutes } from './api/admin-canary-routes.js';
import { adminExportRoutes } from './api/admin-export-routes.js';
import { authRoutes } from './api/auth-routes.js';
import { consoleGuard } from './api/console-guard.js';
import { guardedRouter } from './api/guarded-router.js';
import { orderRoutes } from './api/order-routes.js';
import { paymentAdminRoutes } from './api/payment-admin-routes.js';
import { redeemAdminRoutes } from './api/redeem-admin-routes.js';
import { validateRequest } from './api/request-validation.js';
import { usageRoutes } from './api/usage-routes.js';
import { webhookRoutes } from './api/webhook-routes.js';
import { openapiRoutes } from './openapi.js';
import { consoleRoutes } from './routes/index.js';
import { mountRoutes } from './routes/mount-routes.js';

export type RouteModule = (router: Router, s: Services) => void;

/** Console API modules not yet moved to route definitions (core/console/contract/), in no particular order. */
const API_MODULES: RouteModule[] = [
  authRoutes,
  usageRoutes,
  orderRoutes,
  paymentAdminRoutes,
  redeemAdminRoutes,
  webhookRoutes,
  adminExportRoutes,
  adminCanaryRoutes,
  openapiRoutes,
];

export function mountConsole(router: Router, s: Services): void {
  // The defined routes (core/console/contract/index.ts) with their handlers (core/console/routes/index.ts).
  mountRoutes(router, s, consoleRoutes(s));
  // NUL bytes refused and database outages as 503 on every console route (core/console/api/console-guard.ts).
  // Bodies and queries checked against the published schemas after auth, before each handler.
  const guarded = guardedRouter(router, consoleGuard, validateRequest);
  for (const mount of API_MODULES) mount(guarded, s);
}
