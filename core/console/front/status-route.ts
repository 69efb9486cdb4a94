// GET /status (and HEAD): the public status page, server-rendered in Chinese or English like the front page, no
// script; GET /status.json: the same report as JSON (documented in /openapi.json as statusReport). Both are read
// from the status service (core/health/status-service.ts): at most one database read per 15 s per process.
import type Router from '@koa/router';
import type { StatusService } from '../../health/status-service.js';
import type { WindowName } from '../../health/status-view.js';
import { frontLang, publicPageHeaders } from './front-route.js';
import { STATUS_CSP } from './status-css.js';
import { renderStatusPage } from './status-html.js';

const WINDOW_NAMES: readonly WindowName[] = ['24h', '7d', '30d'];

export function statusRoutes(router: Router, status: StatusService): void {
  router.get('/status', async (ctx) => {
    const { lang, explicit } = frontLang(ctx);
    const asked = typeof ctx.query.window === 'string' ? ctx.query.window : '24h';
    const window = (WINDOW_NAMES as readonly string[]).includes(asked) ? (asked as WindowName) : '24h';
    const report = await status.report();
    publicPageHeaders(ctx, STATUS_CSP, lang, explicit, 30);
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = renderStatusPage(report, lang, window);
  });

  router.get('/status.json', async (ctx) => {
    const report = await status.report();
    ctx.set('Cache-Control', 'public, max-age=30');
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.type = 'application/json; charset=utf-8';
    ctx.body = report;
  });
}
