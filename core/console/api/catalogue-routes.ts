// GET /console/api/operations, /plans, /packages: what can be called and bought. No login needed: the docs
// pages and the pricing page show them to visitors too.
import type Router from '@koa/router';
import type { Services } from '../../services.js';
import { presentOperation, presentPackage, presentPlan } from './catalogue.js';

export function catalogueRoutes(router: Router, s: Services): void {
  router.get('/console/api/operations', (ctx) => {
    ctx.body = { operations: s.registry.current.list().map(presentOperation) };
  });
  router.get('/console/api/plans', (ctx) => {
    ctx.body = { plans: s.registry.current.config.plans.map(presentPlan) };
  });
  router.get('/console/api/packages', (ctx) => {
    ctx.body = { packages: s.registry.current.config.packages.map(presentPackage) };
  });
}
