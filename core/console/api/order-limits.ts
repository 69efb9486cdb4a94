// Budgets on creating and cancelling orders. Each new order may open a checkout session at the payment
// provider and each cancel may close one: unthrottled, one free account could spend the merchant's provider
// API allowance (Stripe allows about 100 operations a second per account) and so rate-limit every buyer's
// checkout, and fill the orders table. Counted per account and per client address (IPv4, or IPv6 /64) in the
// shared state, so every gateway process counts together. Reopening an open order for the same item costs the
// provider nothing, but it is still counted: the budget is far above what a person clicks.
import type { Context } from 'koa';
import { ApiError } from '../../http/errors.js';
import type { Services } from '../../services.js';
import type { Budget } from './auth-limits.js';
import { clientGroupOf } from './client-ip-group.js';

export const ORDER_BUDGETS = {
  create: { user: { perHour: 60, burst: 10 }, ip: { perHour: 240, burst: 30 } },
  cancel: { user: { perHour: 60, burst: 10 }, ip: { perHour: 240, burst: 30 } },
} as const satisfies Record<string, { user: Budget; ip: Budget }>;

const WHAT = { create: 'orders created', cancel: 'orders cancelled' } as const;

/** Takes one from the account's and the address's budget, or throws 429 TOO_MANY_REQUESTS with Retry-After. */
export async function spendOrderBudget(
  ctx: Context,
  s: Services,
  action: keyof typeof ORDER_BUDGETS,
  userId: number,
): Promise<void> {
  const budgets = ORDER_BUDGETS[action];
  const scopes = [
    { key: `console:order-${action}:user:${userId}`, budget: budgets.user, who: 'this account' },
    { key: `console:order-${action}:ip:${clientGroupOf(ctx)}`, budget: budgets.ip, who: 'this address' },
  ];
  for (const { key, budget, who } of scopes) {
    const decision = await s.state.takeToken(key, budget.perHour / 3600, budget.burst);
    if (decision.allowed) continue;
    const wait = Math.max(1, Math.ceil(decision.retryAfterSeconds));
    ctx.set('Retry-After', String(wait));
    throw new ApiError('TOO_MANY_REQUESTS', `Too many ${WHAT[action]} from ${who}. Retry in ${wait} seconds.`);
  }
}
