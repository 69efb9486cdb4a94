// createApp(services): the Koa app without listen(), so tests drive app.callback() in-process.
import Koa from 'koa';
import Router from '@koa/router';
import { bodyParser } from '@koa/bodyparser';
import type { Services } from './services.js';
import { requestContext } from './http/request-context.js';
import { health } from './http/health.js';
import { handleApiCall } from './pipeline/index.js';
import { mountConsole, mountWeb } from './console/mount.js';
import { ApiError } from './http/errors.js';

/**
 * An unknown /console/api path gets the JSON error shape, not Koa's text 404 (and never the web console's page
 * fallback). A known path with the wrong method was matched by the router and keeps its 405.
 */
async function consoleApiNotFound(ctx: Koa.Context, next: Koa.Next): Promise<void> {
  const matched = (ctx as Koa.Context & { matched?: unknown[] }).matched;
  if (/^\/console\/api(\/|$)/.test(ctx.path) && !matched?.length) {
    throw new ApiError('RESOURCE_NOT_FOUND', `There is no console API at ${ctx.method} ${ctx.path}.`);
  }
  await next();
}

export function createApp(s: Services): Koa {
  const app = new Koa({ proxy: s.settings.trustProxy });
  const router = new Router();

  router.get('/api/health', (ctx) => health(ctx, s));
  router.get('/metrics', (ctx) => {
    const token = s.settings.metricsToken;
    if (token && ctx.get('authorization') !== `Bearer ${token}`) {
      ctx.status = 401;
      ctx.body = 'metrics need Authorization: Bearer <METRICS_TOKEN>\n';
      return;
    }
    ctx.type = 'text/plain; version=0.0.4';
    ctx.body = s.metrics.render({ tollgate_uptime_seconds: Math.round((Date.now() - s.startedAt) / 1000) });
  });
  router.get('/api/{*rest}', (ctx) => handleApiCall(ctx, s));
  router.post('/api/{*rest}', (ctx) => handleApiCall(ctx, s));

  app.use(requestContext(s.logger));
  app.use(bodyParser({ enableTypes: ['json', 'form'], jsonLimit: '256kb', formLimit: '256kb', encoding: 'utf-8' }));
  mountConsole(router, s);
  app.use(router.routes());
  app.use(router.allowedMethods());
  app.use(consoleApiNotFound);
  mountWeb(app, s);
  app.on('error', (err: Error) => s.logger.error('koa error', { reason: err.message }));
  return app;
}
