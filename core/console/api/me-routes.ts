// GET /console/api/me: who is logged in, their money, their plan and today's quota.
import type Router from '@koa/router';
import type { Kysely } from 'kysely';
import { balanceOf } from '../../billing/ledger.js';
import { activeSubscription } from '../../billing/subscriptions.js';
import { toToken } from '../../kernel/money.js';
import type { Services } from '../../services.js';
import type { Database } from '../../store/schema.js';
import { requireUser, userOf } from './auth.js';
import { iso, presentUser } from './present.js';

/** Renewals are stored as further rows starting where the current one ends: the plan lasts until the last. */
async function planEnd(db: Kysely<Database>, userId: number, planId: string, now: number): Promise<number> {
  const row = await db
    .selectFrom('subscriptions')
    .select((eb) => eb.fn.max('ends_at').as('end'))
    .where('user_id', '=', userId)
    .where('plan_id', '=', planId)
    .where('ends_at', '>', now)
    .executeTakeFirst();
  return Number(row?.end ?? now);
}

export function meRoutes(router: Router, s: Services): void {
  const db = s.store.db;
  router.get('/console/api/me', requireUser(s), async (ctx) => {
    const user = userOf(ctx);
    const now = Date.now();
    const money = await balanceOf(db, user.id);
    const sub = await activeSubscription(db, user.id, now);
    const plan = sub ? s.registry.current.plan(sub.planId) : undefined;
    let planOut: Record<string, unknown> | null = null;
    let quota: Record<string, unknown> | null = null;
    if (sub && plan) {
      planOut = { id: plan.id, name: plan.name, ends_at: iso(await planEnd(db, user.id, plan.id, now)) };
      const used = await s.plans.usedToday(user.id);
      quota = {
        calls_per_day: plan.quota.callsPerDay,
        concurrency: plan.quota.concurrency,
        cache_free: plan.quota.cacheFree,
        used_today: used,
        remaining_today: Math.max(0, plan.quota.callsPerDay - used),
      };
    }
    ctx.body = {
      user: presentUser(user),
      balance: toToken(money.balance),
      available: toToken(money.balance - money.held),
      plan: planOut,
      quota,
    };
  });
}
