// Per-IP request budgets for the unauthenticated account endpoints (token buckets in the shared state, so every
// gateway process counts together). They sit in front of the failure-based login throttle: these cap how
// often an IP may ask at all (login flooding, mass sign-up), the throttle caps how often it may be wrong.
import type { Context } from 'koa';
import { DETAILS } from '../../http/error-details.js';
import { ApiError } from '../../http/errors.js';
import type { Services } from '../../services.js';
import { clientGroupOf } from './client-ip-group.js';

export interface Budget {
  /** Requests refilled per hour. */
  perHour: number;
  /** Requests allowed at once (bucket size). */
  burst: number;
}

export const AUTH_BUDGETS = {
  login: { perHour: 600, burst: 30 },
  register: { perHour: 20, burst: 20 },
  /** Creating API keys mints secrets: generous for people, a wall for scripts. */
  keyCreate: { perHour: 120, burst: 60 },
  /** Reset and verification requests and link use: each may send a mail or test a token. */
  passwordReset: { perHour: 30, burst: 10 },
} as const satisfies Record<string, Budget>;

export type BudgetName = keyof typeof AUTH_BUDGETS;

/** Takes one request from the IP's budget, or throws 429 TOO_MANY_ATTEMPTS with Retry-After. */
export async function spendIpBudget(ctx: Context, s: Services, name: BudgetName): Promise<void> {
  const budget = AUTH_BUDGETS[name];
  const decision = await s.state.takeToken(
    `console:${name}:ip:${clientGroupOf(ctx)}`,
    budget.perHour / 3600,
    budget.burst,
  );
  if (decision.allowed) return;
  const wait = Math.max(1, Math.ceil(decision.retryAfterSeconds));
  ctx.set('Retry-After', String(wait));
  throw new ApiError('TOO_MANY_ATTEMPTS', DETAILS.ipBudget(name, wait));
}
