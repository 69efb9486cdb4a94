// The catalogue (core/console/contract/catalogue.ts). Names and descriptions are in the caller's language
// (Accept-Language, else English), with both under `text`. Plus the admin's view of which operations are
// configured, and how their configured upstreams stand.
import { callerLocale } from '../../http/envelope.js';
import { toToken } from '../../kernel/money.js';
import type { Services } from '../../services.js';
import { upstreamHealthOf } from '../../state/upstream-health.js';
import { presentOperation, presentOperationStatus, presentPackage, presentPlan } from '../api/catalogue.js';
import { presentUpstreams } from '../api/upstream-status.js';
import { CATALOGUE } from '../contract/catalogue.js';
import { offeredTrial } from '../front/front-route.js';
import { implement } from './mount-routes.js';

export function catalogueRoutes(s: Services) {
  return implement(CATALOGUE, {
    operations: async () => ({ operations: s.registry.current.list().map(presentOperation) }),
    plans: async (_, ctx) => {
      const lang = callerLocale(ctx.get('accept-language'));
      return { plans: s.registry.current.config.plans.map((p) => presentPlan(p, lang)) };
    },
    packages: async (_, ctx) => {
      const lang = callerLocale(ctx.get('accept-language'));
      return { packages: s.registry.current.config.packages.map((p) => presentPackage(p, lang)) };
    },
    // The sign-up offer the dashboard and the register page show: 0 when there is none or sign-up is closed.
    offer: async () => ({ trial_tokens: toToken(offeredTrial(s, s.registry.current)) }),
    // The operator's side of the same list: why an operation is unavailable (env variable names stay here).
    adminOperations: async () => {
      const health = upstreamHealthOf(s.state);
      const operations = await Promise.all(
        s.registry.current
          .list()
          .map(async (op) => ({ ...presentOperationStatus(op), upstreams: await presentUpstreams(op, health) })),
      );
      return { operations };
    },
  });
}
