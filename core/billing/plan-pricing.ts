// The Plans policy: an active plan makes calls to its codes free within calls_per_day and within its free
// concurrency, and cache hits free when cache_free; beyond either, a call is charged per call. Only
// successful calls use quota: the reservation is given back when the call fails. A plan with calls_per_day 0
// only counts: its calls are charged, and the successful ones are counted in the same daily counter.

import type { Kysely } from 'kysely';
import { LRUCache } from 'lru-cache';
import type { PlanConfig } from '../config/operations-config.js';
import { chinaDay, chinaDayStart } from '../kernel/china-day.js';
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

  const activePlan = async (userId: number): Promise<{ sub: ActiveSubscription; plan: PlanConfig } | null> => {
    let entry = subs.get(userId);
    // A cached subscription that ended may have a renewal starting right at its end: look again, do not wait
    // for the cache entry to age out.
    if (!entry || (entry.sub && entry.sub.endsAt <= Date.now()))
      subs.set(userId, (entry = { sub: await activeSubscription(db, userId) }));
    const sub = entry.sub;
    if (!sub || sub.endsAt <= Date.now()) return null;
    const plan = registry().plan(sub.planId);
    return plan ? { sub, plan } : null;
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

  /** The day's counter key, seeded from the log when the counter is not there; and its value read on the way. */
  const daily = async (userId: number, plan: PlanConfig): Promise<{ key: string; used: number | null }> => {
    const key = dailyKey(userId);
    const used = await state.get(key);
    if (used === null) await state.initCounter(key, await usedFromLog(userId, plan), COUNTER_TTL_S);
    return { key, used };
  };
  const ensureDaily = async (userId: number, plan: PlanConfig): Promise<string> => (await daily(userId, plan)).key;

  /** For display: the shared counter, or while it is unreachable what the call log says. */
  const usedNow = async (userId: number, plan: PlanConfig): Promise<number> => {
    try {
      const { key, used } = await daily(userId, plan);
      return used ?? (await state.get(key)) ?? 0;
    } catch (err) {
      if (err instanceof StateUnavailableError) return usedFromLog(userId, plan);
      throw err;
    }
  };

  /** Counting-only plans: count the call now, uncount it if it fails; the call is charged as usual. */
  const count = async (userId: number, plan: PlanConfig): Promise<PlanGrant> => {
    const key = await ensureDaily(userId, plan);
    await state.incr(key, 1, COUNTER_TTL_S);
    return {
      planId: plan.id,
      commit: async () => {},
      release: async () => void (await state.giveBack(key, 1, COUNTER_TTL_S)),
    };
  };

  const reserve = async (userId: number, plan: PlanConfig): Promise<PlanGrant | null> => {
    const key = await ensureDaily(userId, plan);
    const used = await state.incr(key, 1, COUNTER_TTL_S);
    if (used > plan.quota.callsPerDay) {
      await state.giveBack(key, 1, COUNTER_TTL_S);
      return null;
    }
    let slot: string | null = null;
    const slotScope = `plan-slot:${userId}`;
    if (plan.quota.concurrency !== null) {
      slot = await state.acquireSlot(slotScope, plan.quota.concurrency, SLOT_TTL_MS);
      if (!slot) {
        await state.giveBack(key, 1, COUNTER_TTL_S);
        return null;
      }
    }
    const freeSlot = async (): Promise<void> => {
      if (slot) await state.releaseSlot(slotScope, slot);
    };
    return {
      planId: plan.id,
      usage: { used, limit: plan.quota.callsPerDay },
      commit: freeSlot,
      release: async () => {
        await state.giveBack(key, 1, COUNTER_TTL_S);
        await freeSlot();
      },
    };
  };

  return {
    async quote(userId: number, op: PricedOperation, cached: boolean): Promise<Quote> {
      if (op.priceMicro === 0) return { price: 0, freeReason: 'free_operation' };
      const charged: Quote = { price: op.priceMicro, freeReason: null };
      const active = await activePlan(userId);
      if (!active?.plan.codes.includes(op.code)) return charged;
      const { quota } = active.plan;
      // A free cache hit uses no quota; a counting-only plan still counts it, as every successful call to its codes.
      if (cached && quota.cacheFree) {
        const counted = quota.callsPerDay === 0 ? await count(userId, active.plan) : undefined;
        return { price: 0, freeReason: 'plan_cache', planGrant: counted };
      }
      // Charged, but counted: the grant only gives the count back if the call fails.
      if (quota.callsPerDay === 0) return { ...charged, planGrant: await count(userId, active.plan) };
      const grant = await reserve(userId, active.plan);
      return grant ? { price: 0, freeReason: 'plan', planGrant: grant } : charged;
    },
    async quotaHeaders(userId: number): Promise<Record<string, string>> {
      const active = await activePlan(userId);
      if (!active) return {};
      const used = await usedNow(userId, active.plan);
      return {
        'X-Plan': active.plan.id,
        'X-Quota-Limit': String(active.plan.quota.callsPerDay),
        'X-Quota-Remaining': String(Math.max(0, active.plan.quota.callsPerDay - used)),
      };
    },
    invalidate: (userId) => void subs.delete(userId),
    async usedToday(userId) {
      const active = await activePlan(userId);
      if (!active) return 0;
      return usedNow(userId, active.plan);
    },
  };
}
