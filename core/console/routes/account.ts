// The user's own account (core/console/contract/account.ts): who is logged in, their money, their plan and
// today's quota.
import type { Kysely } from 'kysely';
import { balanceOf } from '../../billing/ledger.js';
import { activeSubscription } from '../../billing/subscriptions.js';
import { toToken } from '../../kernel/money.js';
import type { Services } from '../../services.js';
import type { Database } from '../../store/schema.js';
import { iso, presentUser } from '../api/present.js';
import { ACCOUNT } from '../contract/account.js';
import { implement } from './mount-routes.js';

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

export function accountRoutes(s: Services) {
  const db = s.store.db;
  return implement(ACCOUNT, {
    me: async ({ user }) => {
      const now = Date.now();
      const money = await balanceOf(db, user.id);
      const sub = await activeSubscription(db, user.id, now);
      const plan = sub ? s.registry.current.plan(sub.planId) : undefined;
      let planOut: { id: string; name: string; ends_at: string } | null = null;
      let quota: {
        calls_per_day: number;
        concurrency: number | null;
        cache_free: boolean;
        used_today: number;
        remaining_today: number;
      } | null = null;
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
      return {
        user: presentUser(user),
        balance: toToken(money.balance),
        available: toToken(money.balance - money.held),
        plan: planOut,
        quota,
      };
    },
  });
}
