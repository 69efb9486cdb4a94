// GET /console/api/operations, /plans, /packages, /offer: what can be called and bought, and what a new account
// gets. No login needed: the docs pages and the pricing page show them to visitors too. Names and descriptions
// are in the caller's language (Accept-Language, else English), with both under `text`. Plus the admin's view of
// which operations are configured, and how their configured upstreams stand.
import type Router from '@koa/router';
import { callerLocale } from '../../http/envelope.js';
import { toToken } from '../../kernel/money.js';
import type { Services } from '../../services.js';
import { upstreamHealthOf } from '../../state/upstream-health.js';
import { offeredTrial } from '../front/front-route.js';
import { requireAdmin } from './auth.js';
import { presentOperation, presentOperationStatus, presentPackage, presentPlan } from './catalogue.js';
import { presentUpstreams } from './upstream-status.js';

export function catalogueRoutes(router: Router, s: Services): void {
  router.get('/console/api/operations', (ctx) => {
    ctx.body = { operations: s.registry.current.list().map(presentOperation) };
  });
  // The operator's side of the same list: why an operation is unavailable (env variable names stay here).
  router.get('/console/api/admin/operations', requireAdmin(s), async (ctx) => {
    const health = upstreamHealthOf(s.state);
    const operations = await Promise.all(
      s.registry.current
        .list()
        .map(async (op) => ({ ...presentOperationStatus(op), upstreams: await presentUpstreams(op, health) })),
    );
    ctx.body = { operations };
  });
  router.get('/console/api/plans', (ctx) => {
    const lang = callerLocale(ctx.get('accept-language'));
    ctx.body = { plans: s.registry.current.config.plans.map((p) => presentPlan(p, lang)) };
  });
  router.get('/console/api/packages', (ctx) => {
    const lang = callerLocale(ctx.get('accept-language'));
    ctx.body = { packages: s.registry.current.config.packages.map((p) => presentPackage(p, lang)) };
  });
  // The sign-up offer the dashboard and the register page show: 0 when there is none or sign-up is closed.
  router.get('/console/api/offer', (ctx) => {
    ctx.body = { trial_tokens: toToken(offeredTrial(s, s.registry.current)) };
  });
}
