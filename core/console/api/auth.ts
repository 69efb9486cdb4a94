// Bearer-token guards for console routes. The token is checked against the database on every request
// (no cache), so logout, expiry and a disabled account take effect on the very next request.
import type { Context, Middleware, Next } from 'koa';
import { securityOf, twoFactorOn } from '../../accounts/user-security.js';
import { checkUserToken } from '../../accounts/user-tokens.js';
import type { User } from '../../accounts/users.js';
import { DETAILS } from '../../http/error-details.js';
import { ApiError } from '../../http/errors.js';
import type { Services } from '../../services.js';

interface ConsoleState {
  consoleUser?: User;
  consoleTokenHash?: string;
}

const REASONS = {
  malformed: DETAILS.tokenMalformed(),
  unknown: DETAILS.tokenUnknown(),
  expired: DETAILS.tokenExpired(),
  revoked: DETAILS.tokenRevoked(),
} as const;

export function bearerOf(ctx: Context): string | undefined {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('authorization'));
  return m?.[1];
}

export function requireUser(s: Services): Middleware {
  return async (ctx: Context, next: Next) => {
    const token = bearerOf(ctx);
    if (!token) throw new ApiError('UNAUTHORIZED');
    const check = await checkUserToken(s.store.db, token);
    if (!check.ok) throw new ApiError('UNAUTHORIZED', REASONS[check.reason]);
    if (check.user.status !== 'active') throw new ApiError('ACCOUNT_DISABLED');
    const state = ctx.state as ConsoleState;
    state.consoleUser = check.user;
    state.consoleTokenHash = check.tokenHash;
    await next();
  };
}

/**
 * requireUser, then the admin role: anonymous is 401, a logged-in non-admin is 403. With REQUIRE_ADMIN_2FA an
 * admin without 2FA is 403 TWO_FACTOR_REQUIRED on admin routes: the session still reaches /me/2fa to turn it on.
 */
export function requireAdmin(s: Services): Middleware {
  const user = requireUser(s);
  return (ctx: Context, next: Next) =>
    user(ctx, async () => {
      const admin = userOf(ctx);
      if (admin.role !== 'admin') throw new ApiError('FORBIDDEN');
      if (s.settings.accounts.requireAdmin2fa && !twoFactorOn(await securityOf(s.store.db, admin.id)))
        throw new ApiError('TWO_FACTOR_REQUIRED');
      await next();
    });
}

export function userOf(ctx: Context): User {
  const user = (ctx.state as ConsoleState).consoleUser;
  if (!user) throw new Error('console route without requireUser');
  return user;
}

export function tokenHashOf(ctx: Context): string {
  const hash = (ctx.state as ConsoleState).consoleTokenHash;
  if (!hash) throw new Error('console route without requireUser');
  return hash;
}
