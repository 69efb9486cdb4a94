// GET /console/api/operations, /plans, /packages: what can be called and bought. No login needed: the docs
// pages and the pricing page show them to visitors too. Plus the admin's view of which operations are configured.
import type Router from '@koa/router';
import type { Services } from '../../services.js';
import { requireAdmin } from './auth.js';
import { presentOperation, presentOperationStatus, presentPackage, presentPlan } from './catalogue.js';

export function catalogueRoutes(router: Router, s: Services): void {
  router.get('/console/api/operations', (ctx) => {
    ctx.body = { operations: s.registry.current.list().map(presentOperation) };
  });
  // The operator's side of the same list: why an operation is unavailable (env variable names stay here).
  router.get('/console/api/admin/operations', requireAdmin(s), (ctx) => {
    ctx.body = { operations: s.registry.current.list().map(presentOperationStatus) };
  });
  router.get('/console/api/plans', (ctx) => {
    ctx.body = { plans: s.registry.current.config.plans.map(presentPlan) };
  });
  router.get('/console/api/packages', (ctx) => {
    ctx.body = { packages: s.registry.current.config.packages.map(presentPackage) };
  });
}
