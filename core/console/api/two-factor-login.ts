// The second login step's account-wide budget (core/accounts/two-factor-throttle.ts), on top of the login
// throttle per address that every wrong code also counts against. When the lock starts, the account's pending
// login challenges are voided (whoever continues must give the password again) and the owner is mailed.
import type { Context } from 'koa';
import { voidAccountTokens } from '../../accounts/account-tokens.js';
import {
  clearTwoFactorFailures,
  recordTwoFactorFailure,
  TWO_FACTOR_FREE_FAILURES,
  twoFactorWait,
} from '../../accounts/two-factor-throttle.js';
import type { User } from '../../accounts/users.js';
import { ApiError } from '../../http/errors.js';
import type { Services } from '../../services.js';
import { sendAccountMail } from './account-mail.js';

/** Throws 429 TOO_MANY_ATTEMPTS with Retry-After while the account's second factor is locked. */
export async function checkTwoFactorBudget(ctx: Context, s: Services, user: User): Promise<void> {
  const wait = await twoFactorWait(s.store.db, user.id);
  if (wait === 0) return;
  ctx.set('Retry-After', String(wait));
  throw new ApiError(
    'TOO_MANY_ATTEMPTS',
    `Too many wrong authentication codes for this account. Retry in ${wait} seconds.`,
  );
}

export async function twoFactorFailed(ctx: Context, s: Services, user: User): Promise<void> {
  const failures = await recordTwoFactorFailure(s.store.db, user.id);
  if (failures !== TWO_FACTOR_FREE_FAILURES) return;
  await voidAccountTokens(s.store.db, user.id, 'twofactor');
  s.logger.warn('second factor locked after repeated wrong codes', { user_id: user.id, failures });
  await sendAccountMail(s, ctx, user, 'two_factor_locked');
}

export async function twoFactorPassed(s: Services, user: User): Promise<void> {
  await clearTwoFactorFailures(s.store.db, user.id);
}
