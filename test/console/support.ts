// Shortcuts for console tests: user tokens without the scrypt round trip, admins, and plan subscriptions.

import { issueUserToken } from '../../core/accounts/user-tokens.js';
import { createUser } from '../../core/accounts/users.js';
import { extendSubscription } from '../../core/billing/subscriptions.js';
import { type TestApp, testPasswordHash } from '../helpers/create-test-app.js';

let seq = 0;

export function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

/** A token for an existing user, as login would issue it. */
export async function tokenFor(h: TestApp, userId: number): Promise<string> {
  return (await issueUserToken(h.services.store.db, userId, 24)).token;
}

export async function admin(h: TestApp): Promise<{ userId: number; token: string; headers: Record<string, string> }> {
  const user = await createUser(
    h.services.store.db,
    `admin${++seq}-${Date.now()}@example.com`,
    'password123',
    'admin',
    await testPasswordHash(),
  );
  const token = await tokenFor(h, user.id);
  return { userId: user.id, token, headers: bearer(token) };
}

/** A user with balance and a key, plus console headers. */
export async function consoleUser(
  h: TestApp,
  balance: number | string = 0,
  limits: Parameters<TestApp['user']>[1] = {},
) {
  const u = await h.user(balance, limits);
  const token = await tokenFor(h, u.userId);
  return { ...u, token, headers: bearer(token) };
}

export async function subscribe(h: TestApp, userId: number, planId: string, days = 30): Promise<void> {
  await h.services.store.db
    .transaction()
    .execute((trx) => extendSubscription(trx, userId, planId, days, `test-sub:${userId}:${planId}:${++seq}`));
  h.services.plans.invalidate(userId);
}
