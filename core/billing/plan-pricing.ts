// The Plans policy: an active plan makes calls to its codes free within calls_per_day and within its free
// concurrency, and cache hits free when cache_free; beyond either, a call is charged per call. Only
// successful calls use quota: the reservation is given back when the call fails. A plan with calls_per_day 0
// only counts: its calls are charged, and the successful ones are counted in the same daily counter.

import type { Kysely } from 'kysely';
import { LRUCache } from 'lru-cache';
import type { PlanConfig } from '../config/operations-config.js';
import { chinaDay, chinaDayStart } from '../kernel/china-day.js';
import { after, type MaybePromise } from '../kernel/maybe-promise.js';
import type { Registry } from '../registry/registry.js';
import { type SharedState, StateUnavailableError } from '../state/shared-state.js';
import type { Database } from '../store/schema.js';
import type { PlanGrant, Plans, PricedOperation, Quote } from './plans.js';
import { type ActiveSubscription, activeSubscription } from './subscriptions.js';

const COUNTER_TTL_S = 2 * 24 * 3600;
const SLOT_TTL_MS = 130_000;

export interface PlanPricing extends Plans {
  /** Forget the cached subscription of a user (after a purchase or redemption). */
  invalidate(userId: number): void;
  usedToday(userId: number): Promise<number>;
}

export function createPlans(db: Kysely<Database>, state: SharedState, registry: () => Registry): PlanPricing {
  const subs = new LRUCache<number, { sub: ActiveSubscription | null }>({ max: 50_000, ttl: 5000 });

  const current = (entry: { sub: ActiveSubscription | null }): { sub: ActiveSubscription; plan: PlanConfig } | null => {
    const sub = entry.sub;
    if (!sub || sub.endsAt <= Date.now()) return null;
    const plan = registry().plan(sub.planId);
    return plan ? { sub, plan } : null;
  };
  /** At once from the cache; from the database when the user is not in it. */
  const activePlan = (userId: number): MaybePromise<{ sub: ActiveSubscription; plan: PlanConfig } | null> => {
    const entry = subs.get(userId);
    // A cached subscription that ended may have a renewal starting right at its end: look again, do not wait
    // for the cache entry to age out.
    if (entry && !(entry.sub && entry.sub.endsAt <= Date.now())) return current(entry);
    return activeSubscription(db, userId).then((sub) => {
      const fresh = { sub };
      subs.set(userId, fresh);
      return current(fresh);
    });
  };

  const dailyKey = (userId: number): string => `quota:${userId}:${chinaDay()}`;

  /**
   * The day's counter lives in shared state; after a restart it is seeded from the call log: the calls the
   * plan made free, or for a counting-only plan the successful calls to its codes.
   */
  const usedFromLog = async (userId: number, plan: PlanConfig): Promise<number> => {
    let q = db
      .selectFrom('call_log')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('user_id', '=', userId)
      .where('created_at', '>=', chinaDayStart());
    q =
      plan.quota.callsPerDay === 0
        ? q.where('error_code', 'is', null).where('operation', 'in', plan.codes.length ? plan.codes : [''])
        : q.where('free_reason', '=', 'plan');
    return Number((await q.executeTakeFirstOrThrow()).n);
  };

  const seed = async (key: string, userId: number, plan: PlanConfig): Promise<void> =>
    state.initCounter(key, await usedFromLog(userId, plan), COUNTER_TTL_S);

  /** The day's counter key, seeded from the log when the counter is not there; and its value read on the way. */
  const daily = (userId: number, plan: PlanConfig): MaybePromise<{ key: string; used: number | null }> => {
    const key = dailyKey(userId);
    return after(state.get(key), (used) =>
      used !== null ? { key, used } : seed(key, userId, plan).then(() => ({ key, used })),
    );
  };

  /** For display: the shared counter, or while it is unreachable what the call log says. */
  const usedNow = (userId: number, plan: PlanConfig): MaybePromise<number> => {
    const fromLog = (err: unknown): Promise<number> => {
      if (err instanceof StateUnavailableError) return usedFromLog(userId, plan);
      throw err;
    };
    try {
      const used = after(daily(userId, plan), ({ key, used }) => used ?? after(state.get(key), (v) => v ?? 0));
      return used instanceof Promise ? used.catch(fromLog) : used;
    } catch (err) {
      return fromLog(err);
    }
  };

  /** Counting-only plans: count the call now, uncount it if it fails; the call is charged as usual. */
  const count = async (userId: number, plan: PlanConfig): Promise<PlanGrant> => {
    const { key } = await daily(userId, plan);
    await state.incr(key, 1, COUNTER_TTL_S);
    return {
      planId: plan.id,
      keep: async () => {},
      giveBack: async () => void (await state.giveBack(key, 1, COUNTER_TTL_S)),
    };
  };

  /** The day's quota, one call of it, and a free-concurrency slot; null when either is used up. */
  const reserve = (userId: number, plan: PlanConfig): MaybePromise<PlanGrant | null> =>
    after(daily(userId, plan), ({ key }) =>
      after(state.incr(key, 1, COUNTER_TTL_S), (used) => {
        const refuse = (): MaybePromise<null> => after(state.giveBack(key, 1, COUNTER_TTL_S), () => null);
        if (used > plan.quota.callsPerDay) return refuse();
        const slotScope = `plan-slot:${userId}`;
        if (plan.quota.concurrency === null) return grantOf(plan, key, used, slotScope, null);
        return after(state.acquireSlot(slotScope, plan.quota.concurrency, SLOT_TTL_MS), (slot) =>
          slot ? grantOf(plan, key, used, slotScope, slot) : refuse(),
        );
      }),
    );

  const grantOf = (plan: PlanConfig, key: string, used: number, slotScope: string, slot: string | null): PlanGrant => {
    const freeSlot = (): MaybePromise<void> => (slot ? state.releaseSlot(slotScope, slot) : undefined);
    return {
      planId: plan.id,
      usage: { used, limit: plan.quota.callsPerDay },
      keep: freeSlot,
      giveBack: () => after(state.giveBack(key, 1, COUNTER_TTL_S), freeSlot),
    };
  };

  const quoteFor = (
    userId: number,
    op: PricedOperation,
    cached: boolean,
    active: { plan: PlanConfig } | null,
  ): MaybePromise<Quote> => {
    const charged: Quote = { price: op.priceMicro, freeReason: null };
    if (!active?.plan.codes.includes(op.code)) return charged;
    const { quota } = active.plan;
    // A free cache hit uses no quota; a counting-only plan still counts it, as every successful call to its codes.
    if (cached && quota.cacheFree) {
      if (quota.callsPerDay !== 0) return { price: 0, freeReason: 'plan_cache' };
      return count(userId, active.plan).then((counted) => ({ price: 0, freeReason: 'plan_cache', planGrant: counted }));
    }
    // Charged, but counted: the grant only gives the count back if the call fails.
    if (quota.callsPerDay === 0) return count(userId, active.plan).then((planGrant) => ({ ...charged, planGrant }));
    return after(reserve(userId, active.plan), (grant) =>
      grant ? { price: 0, freeReason: 'plan', planGrant: grant } : charged,
    );
  };

  return {
    quote(userId, op, cached) {
      if (op.priceMicro === 0) return { price: 0, freeReason: 'free_operation' };
      return after(activePlan(userId), (active) => quoteFor(userId, op, cached, active));
    },
    quotaHeaders(userId) {
      return after(activePlan(userId), (active) => {
        if (!active) return {};
        const { id, quota } = active.plan;
        return after(usedNow(userId, active.plan), (used) => ({
          'X-Plan': id,
          'X-Quota-Limit': String(quota.callsPerDay),
          'X-Quota-Remaining': String(Math.max(0, quota.callsPerDay - used)),
        }));
      });
    },
    invalidate: (userId) => void subs.delete(userId),
    async usedToday(userId) {
      const active = await activePlan(userId);
      return active ? usedNow(userId, active.plan) : 0;
    },
  };
}
