// GET /api/_balance: what an sk_ key may still spend, answered with the key alone. Free and unbilled, never in
// the call log. Operation codes cannot start with "_" (OPERATION_CODE_PATTERN) and operations.yaml may not bind
// a route under /api/_ (core/config/operations-loader.ts), so no operation can take this path.
// The key is checked by the same authenticate stage as a call (disabled, expired, wrong-IP keys are refused),
// and a small per-key budget keeps scripts that poll it from loading the database.
import type { Context } from 'koa';
import { balanceOf } from '../billing/ledger.js';
import { spentToday } from '../billing/spend-cap.js';
import { activeSubscription } from '../billing/subscriptions.js';
import { answerOnKoa } from '../http/api-edge.js';
import { DETAILS } from '../http/error-details.js';
import { deny } from '../http/errors.js';
import { toToken } from '../kernel/money.js';
import type { Services } from '../services.js';
import { isDatabaseUnavailable } from '../store/database-errors.js';
import { authenticate } from './authenticate.js';
import type { ApiCall } from './call.js';
import { beginCall } from './koa-door.js';
import { respond } from './respond.js';

export const BALANCE_PATH = '/api/_balance';
/** Per key: 5 requests a second, bursts of 20. */
const BUDGET = { perSecond: 5, burst: 20 };

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export async function handleBalanceByKey(ctx: Context, s: Services): Promise<void> {
  const call = beginCall(ctx, s);
  try {
    await answerBalance(ctx, s, call);
  } catch (err) {
    // A database outage is "retry later" (503), as for a call; anything else stays a 500 for the app's handler.
    if (!isDatabaseUnavailable(err)) throw err;
    s.logger.error('balance request failed', { request_id: call.requestId, reason: (err as Error).message });
    call.identity = undefined; // no second database read for `remaining`
    const denial = deny('UNAVAILABLE', 'The billing database is unavailable right now. Retry shortly.', 5);
    answerOnKoa(ctx, await respond(call, s, denial), s.logger);
  }
}

async function answerBalance(ctx: Context, s: Services, call: ApiCall): Promise<void> {
  const denied = await authenticate(call, s);
  const key = call.identity;
  if (denied || key === undefined) {
    answerOnKoa(ctx, await respond(call, s, denied ?? deny('INVALID_API_KEY')), s.logger);
    return;
  }
  const budget = await s.state.takeToken(`balance:key:${key.keyId}`, BUDGET.perSecond, BUDGET.burst);
  if (!budget.allowed) {
    const answer = await respond(
      call,
      s,
      deny('RATE_LIMITED', DETAILS.balanceRequests(), Math.max(1, Math.ceil(budget.retryAfterSeconds))),
    );
    answerOnKoa(ctx, answer, s.logger);
    return;
  }
  const now = Date.now();
  const money = await balanceOf(s.store.db, key.userId);
  const sub = await activeSubscription(s.store.db, key.userId, now);
  const plan = sub ? call.registry.plan(sub.planId) : undefined;
  let planOut: Record<string, unknown> | null = null;
  if (sub && plan) {
    const used = await s.plans.usedToday(key.userId);
    planOut = {
      id: plan.id,
      name: plan.name,
      ends_at: iso(sub.endsAt),
      calls_per_day: plan.quota.callsPerDay,
      used_today: used,
      remaining_today: Math.max(0, plan.quota.callsPerDay - used),
      concurrency: plan.quota.concurrency,
      cache_free: plan.quota.cacheFree,
    };
  }
  const spent = key.dailySpendCap === null ? null : await spentToday(s.store.db, s.state, key);
  const data = {
    balance: toToken(money.balance),
    available: toToken(money.balance - money.held),
    plan: planOut,
    key: {
      id: key.keyId,
      expires_at: iso(key.expiresAt),
      allowed_codes: key.allowedCodes,
      ip_allow: key.ipAllow,
      rate_limit_per_sec: key.rateLimitPerSec ?? s.settings.rateLimitPerSecond,
      rate_limit_burst: key.rateLimitBurst ?? s.settings.rateLimitBurst,
      max_concurrency: key.maxConcurrency ?? s.settings.maxInFlightPerKey,
      daily_spend_cap: key.dailySpendCap === null ? null : toToken(key.dailySpendCap),
      spent_today: spent === null ? null : toToken(spent),
      spend_cap_remaining:
        spent === null || key.dailySpendCap === null ? null : toToken(Math.max(0, key.dailySpendCap - spent)),
    },
  };
  call.dataJson = JSON.stringify(data);
  // Nothing was captured: the balance just read is what `remaining` says.
  call.captured = { charged: 0, balanceAfter: money.balance, bodyOut: undefined, logged: false };
  answerOnKoa(ctx, await respond(call, s, undefined), s.logger);
}
