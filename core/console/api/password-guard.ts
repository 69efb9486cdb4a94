// The checks every password (and second-factor) attempt goes through, shared by login, sign-up, password change
// and 2FA: one PasswordWork gate per app for scrypt (a full gate is 503 or 429), the failure throttle per IP +
// account (core/accounts/login-throttle.ts) and the transparent re-hash of old hashes.
import type { Context } from 'koa';
import {
  type LoginVerdict,
  loginVerdict,
  pruneLoginAttempts,
  recordLoginFailure,
  recordLoginSuccess,
} from '../../accounts/login-throttle.js';
import { PasswordWork, PasswordWorkRefused } from '../../accounts/password-work.js';
import { hashPassword, needsRehash, verifyPassword } from '../../accounts/passwords.js';
import type { User } from '../../accounts/users.js';
import { DETAILS } from '../../http/error-details.js';
import { ApiError } from '../../http/errors.js';
import type { Services } from '../../services.js';
import { clientGroupOf } from './client-ip-group.js';

/** A hash of a random password at today's parameters: unknown emails cost as much time as wrong passwords. */
let dummyHash: Promise<string> | undefined;
const dummy = (): Promise<string> => (dummyHash ??= hashPassword(`dummy-${Math.random()}`));
const PRUNE_EVERY_MS = 60_000;

export interface PasswordGuard {
  /** scrypt through the gate. */
  gated<T>(ctx: Context, fn: () => Promise<T>, priority?: boolean): Promise<T>;
  /** The throttle verdict for this IP and email, thrown as 429 with Retry-After when it says wait. */
  throttle(ctx: Context, email: string, user: User | undefined): Promise<LoginVerdict>;
  /** Checks the password against the account (or a dummy); records the outcome; upgrades an old hash. */
  checkPassword(
    ctx: Context,
    email: string,
    password: string,
    user: User | undefined,
    verdict: LoginVerdict,
  ): Promise<boolean>;
  /** Counts a wrong second factor like a wrong password. */
  recordFailure(ctx: Context, email: string): Promise<void>;
}

export function createPasswordGuard(s: Services): PasswordGuard {
  const db = s.store.db;
  const work = new PasswordWork();
  let lastPrune = 0;

  const gated = async <T>(ctx: Context, fn: () => Promise<T>, priority = false): Promise<T> => {
    try {
      return await work.run(clientGroupOf(ctx), fn, priority);
    } catch (err) {
      if (!(err instanceof PasswordWorkRefused)) throw err;
      ctx.set('Retry-After', '1');
      if (err.reason === 'client-busy') throw new ApiError('TOO_MANY_ATTEMPTS', DETAILS.loginInProgress());
      throw new ApiError('UNAVAILABLE', DETAILS.loginsBusy());
    }
  };

  const throttle = async (ctx: Context, email: string, user: User | undefined): Promise<LoginVerdict> => {
    const verdict = await loginVerdict(db, clientGroupOf(ctx), email, user?.id);
    if (verdict.wait === 0) return verdict;
    ctx.set('Retry-After', String(verdict.wait));
    throw new ApiError(
      'TOO_MANY_ATTEMPTS',
      DETAILS.failedLogins(verdict.scope === 'ip' ? 'ip' : 'email', verdict.wait),
    );
  };

  const recordFailure = async (ctx: Context, email: string): Promise<void> => {
    await recordLoginFailure(db, clientGroupOf(ctx), email);
    if (Date.now() - lastPrune > PRUNE_EVERY_MS) {
      lastPrune = Date.now();
      await pruneLoginAttempts(db);
    }
  };

  const checkPassword = async (
    ctx: Context,
    email: string,
    password: string,
    user: User | undefined,
    verdict: LoginVerdict,
  ): Promise<boolean> => {
    const ip = clientGroupOf(ctx);
    const ok = await gated(
      ctx,
      async () => verifyPassword(password, user?.password_hash ?? (await dummy())),
      verdict.knownGood,
    );
    if (!user || !ok) {
      await recordFailure(ctx, email);
      return false;
    }
    await recordLoginSuccess(db, ip, email, user.id);
    if (needsRehash(user.password_hash)) {
      // Best effort: when the gate is full the upgrade waits for a later login; the login itself succeeds.
      const fresh = await work
        .run(ip, () => hashPassword(password), true)
        .catch((err: unknown) => {
          if (err instanceof PasswordWorkRefused) return null;
          throw err;
        });
      // Only if nobody changed it meanwhile.
      if (fresh)
        await db
          .updateTable('users')
          .set({ password_hash: fresh })
          .where('id', '=', user.id)
          .where('password_hash', '=', user.password_hash)
          .execute();
    }
    return true;
  };

  return { gated, throttle, checkPassword, recordFailure };
}

const guards = new WeakMap<Services, PasswordGuard>();

/** The app's one guard: every route that hashes or checks a password shares its scrypt gate and throttle. */
export function passwordGuardOf(s: Services): PasswordGuard {
  let guard = guards.get(s);
  if (!guard) {
    guard = createPasswordGuard(s);
    guards.set(s, guard);
  }
  return guard;
}
