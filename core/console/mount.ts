// Console API routes (/console/api/*) and the OpenAPI document on the app's router. Every console route is
// defined once (core/console/contract/index.ts) and bound to its handler (core/console/routes/index.ts); the
// mounter adds the console guard, auth and the input checks of each definition.
import type Router from '@koa/router';
import type { Services } from '../services.js';
import { openapiRoutes } from './openapi.js';
import { consoleRoutes } from './routes/index.js';
import { mountRoutes } from './routes/mount-routes.js';

export function mountConsole(router: Router, s: Services): void {
  mountRoutes(router, s, consoleRoutes(s));
  openapiRoutes(router, s);
}
