// createApp(services): the Koa app without listen(), so tests drive app.callback() in-process.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { bodyParser } from '@koa/bodyparser';
import Router from '@koa/router';
import Koa from 'koa';
import { consoleIdsOnlyForAllow } from './console/allow-ids-only.js';
import { paymentNotifyMiddleware } from './console/api/payment-notify-route.js';
import { frontPageRoute } from './console/front/front-route.js';
import { statusRoutes } from './console/front/status-route.js';
import { mountConsole } from './console/mount.js';
import { serveConsoleWeb } from './console/web-serve.js';
import { createStatusService } from './health/status-service.js';
import { onBodyParseError } from './http/body-errors.js';
import { clientIpMiddleware, compileClientIp } from './http/client-ip.js';
import { DETAILS } from './http/error-details.js';
import { ApiError } from './http/errors.js';
import { health } from './http/health.js';
import { metricsRoute } from './http/metrics-endpoint.js';
import { requestContext } from './http/request-context.js';
import { mcpEndpoint } from './mcp/endpoint.js';
import { BALANCE_PATH, handleBalanceByKey } from './pipeline/balance-by-key.js';
import { handleApiCall } from './pipeline/koa-door.js';
import { leanApiEntry } from './pipeline/lean-entry.js';
import type { Services } from './services.js';

/**
 * An unknown /console/api path gets the JSON error shape, not Koa's text 404 (and never the web console's page
 * fallback). A known path with the wrong method was matched by the router and keeps its 405.
 */
async function consoleApiNotFound(ctx: Koa.Context, next: Koa.Next): Promise<void> {
  const matched = (ctx as Koa.Context & { matched?: unknown[] }).matched;
  if (/^\/console\/api(\/|$)/.test(ctx.path) && !matched?.length) {
    throw new ApiError('RESOURCE_NOT_FOUND', DETAILS.nothingAt(`${ctx.method} ${ctx.path.slice(0, 200)}`));
  }
  await next();
}

/**
 * @koa/router answers HEAD on every GET route, so HEAD /api/{code} would run and bill a call whose body is never
 * sent. Dropping HEAD from the route's methods (once, at build) makes the router answer 405 with Allow: GET, POST.
 */
function refuseHead(router: Router, path: string): void {
  for (const layer of router.stack) {
    if (layer.path === path) layer.methods = layer.methods.filter((m) => m !== 'HEAD');
  }
}

/**
 * The gateway's Koa app, whose request listener first offers each request to the lean /api entry (body-less calls,
 * core/pipeline/lean-entry.ts) and hands Koa the rest. Everything that serves the app (the server, the tests) goes
 * through callback(), so both entries are always the ones in use.
 */
class GatewayApp extends Koa {
  constructor(
    trustProxy: boolean,
    private readonly lean: ReturnType<typeof leanApiEntry>,
  ) {
    super({ proxy: trustProxy });
  }

  override callback(): ReturnType<Koa['callback']> {
    const koa = super.callback();
    return (req, res) => (this.lean(req as IncomingMessage, res as ServerResponse) ? Promise.resolve() : koa(req, res));
  }
}

export function createApp(s: Services): Koa {
  const clientIp = compileClientIp(s.settings.trustProxy);
  // Koa's own proxy mode believes the left-most X-Forwarded-For entry; the client IP is set by clientIpMiddleware.
  const app = new GatewayApp(s.settings.trustProxy !== null, leanApiEntry(s, clientIp));
  const router = new Router();

  router.get('/api/health', (ctx) => health(ctx, s));
  router.get('/metrics', metricsRoute(s));
  // Before the catch-all: free balance look-up by key (no operation can own /api/_...).
  router.get(BALANCE_PATH, (ctx) => handleBalanceByKey(ctx, s));
  router.post(BALANCE_PATH, (ctx) => handleBalanceByKey(ctx, s));
  router.get('/api/{*rest}', (ctx) => handleApiCall(ctx, s));
  router.post('/api/{*rest}', (ctx) => handleApiCall(ctx, s));
  refuseHead(router, '/api/{*rest}');

  app.use(requestContext(s.logger));
  app.use(clientIpMiddleware(clientIp));
  // Payment notifications are verified over their raw bytes, so they are answered before the body parser runs.
  app.use(paymentNotifyMiddleware(s));
  // POST /mcp reads its own body, so a malformed one is a JSON-RPC parse error rather than the /api envelope.
  app.use(mcpEndpoint(s));
  app.use(
    bodyParser({
      enableTypes: ['json', 'form'],
      jsonLimit: '256kb',
      formLimit: '256kb',
      encoding: 'utf-8',
      onError: onBodyParseError,
    }),
  );
  // The public front page at / (what is sold, prices, a first call): server-rendered, cached per config load.
  // The public status page and its JSON (canary results, core/health), and the front page's status dot.
  const status = createStatusService(s);
  frontPageRoute(router, s, status);
  statusRoutes(router, status);
  mountConsole(router, s);
  app.use(router.routes());
  app.use(router.allowedMethods());
  app.use(consoleIdsOnlyForAllow);
  app.use(consoleApiNotFound);
  // The static console is registered on the app (not the router) so it can serve files below /console/; esbuild
  // is loaded only when the bundle is missing.
  serveConsoleWeb(app, {
    logger: s.logger,
    build: async (dir) => (await import('./build/console-bundle.js')).buildConsoleBundle(dir, { quiet: true }),
  });
  app.on('error', (err: Error) => s.logger.error('koa error', { reason: err.message }));
  return app;
}
