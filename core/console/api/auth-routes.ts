// POST /console/api/register, /login, /logout: email + password accounts and their bearer tokens.
import type Router from '@koa/router';
import type { Services } from '../../services.js';
import { createUser, findUserByEmail, isValidEmail, normaliseEmail, type User } from '../../accounts/users.js';
import { passwordWeakness, verifyPassword } from '../../accounts/passwords.js';
import { issueUserToken, revokeUserToken } from '../../accounts/user-tokens.js';
import { clearLoginFailures, loginRetryAfter, recordLoginFailure } from '../../accounts/login-throttle.js';
import { ApiError } from '../../http/errors.js';
import { bodyOf, invalid, reqString } from './input.js';
import { presentUser } from './present.js';
import { requireUser, tokenHashOf } from './auth.js';

/** A scrypt hash of a random password: unknown emails cost as much time as wrong passwords. */
const DUMMY_HASH = 'scrypt$16384$8$1$KEY3BDSlj0f4aODKafqvTQ==$O9AeOk/Rc2jUUa+Yp9c2sB6CrG1qxrwwgJra5AD5lZk=';

function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  return e.code === 'SQLITE_CONSTRAINT_UNIQUE' || e.code === '23505' || /UNIQUE constraint/i.test(e.message ?? '');
}

export function authRoutes(router: Router, s: Services): void {
  const db = s.store.db;

  router.post('/console/api/register', async (ctx) => {
    const b = bodyOf(ctx, ['email', 'password']);
    const email = normaliseEmail(reqString(b, 'email', 254));
    const password = reqString(b, 'password', 200);
    if (!isValidEmail(email)) throw invalid(`'email' is not a valid email address: ${email.slice(0, 80)}.`);
    const weak = passwordWeakness(password);
    if (weak) throw invalid(`Weak password: ${weak}.`);
    if (await findUserByEmail(db, email)) throw new ApiError('CONFLICT', 'An account with this email exists already. Log in instead.');
    let user: User;
    try {
      user = await createUser(db, email, password, 'user');
    } catch (err) {
      // Two registrations racing for one email: the unique index decides.
      if (isUniqueViolation(err)) throw new ApiError('CONFLICT', 'An account with this email exists already. Log in instead.');
      throw err;
    }
    const { token, expiresAt } = await issueUserToken(db, user.id, s.settings.userTokenTtlHours);
    ctx.status = 201;
    ctx.body = { token, expires_at: new Date(expiresAt).toISOString(), user: presentUser(user) };
  });

  router.post('/console/api/login', async (ctx) => {
    const b = bodyOf(ctx, ['email', 'password']);
    const email = normaliseEmail(reqString(b, 'email', 254));
    const password = reqString(b, 'password', 200);
    const wait = await loginRetryAfter(db, email);
    if (wait > 0) {
      ctx.set('Retry-After', String(wait));
      throw new ApiError('TOO_MANY_ATTEMPTS', `Too many failed logins for this email. Retry in ${wait} seconds.`);
    }
    const user = await findUserByEmail(db, email);
    const ok = await verifyPassword(password, user?.password_hash ?? DUMMY_HASH);
    if (!user || !ok) {
      await recordLoginFailure(db, email);
      throw new ApiError('UNAUTHORIZED', 'Wrong email or password.');
    }
    await clearLoginFailures(db, email);
    if (user.status !== 'active') throw new ApiError('ACCOUNT_DISABLED');
    const { token, expiresAt } = await issueUserToken(db, user.id, s.settings.userTokenTtlHours);
    ctx.body = { token, expires_at: new Date(expiresAt).toISOString(), user: presentUser(user) };
  });

  router.post('/console/api/logout', requireUser(s), async (ctx) => {
    await revokeUserToken(db, tokenHashOf(ctx));
    ctx.body = { logged_out: true };
  });
}
