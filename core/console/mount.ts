// Console API routes (/console/api/*) and the web console (/console/) on the app's router.
// Each area registers its own routes; this file only lists them.
import type Router from '@koa/router';
import type { Services } from '../services.js';
import { adminAccountRoutes } from './api/admin-account-routes.js';
import { adminInsightRoutes } from './api/admin-insight-routes.js';
import { adminRoutes } from './api/admin-routes.js';
import { adminUserRoutes } from './api/admin-user-routes.js';
import { consoleGuard } from './api/console-guard.js';
import { guardedRouter } from './api/guarded-router.js';
import { validateRequest } from './api/request-validation.js';
import { openapiRoutes } from './openapi.js';
import { consoleRoutes } from './routes/index.js';
import { mountRoutes } from './routes/mount-routes.js';

export type RouteModule = (router: Router, s: Services) => void;

/** Console API modules not yet moved to route definitions (core/console/contract/), in no particular order. */
const API_MODULES: RouteModule[] = [
  adminAccountRoutes,
  adminRoutes,
  adminUserRoutes,
  adminInsightRoutes,
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
