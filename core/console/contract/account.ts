// The logged-in user's own account: who they are, their money, their plan and today's quota.
import { User } from './components.js';
import { defineRoutes } from './define.js';
import { answer, orNull, rBool, ref, rInt, rStr, rTime, rTokens } from './schema.js';

export const ACCOUNT = defineRoutes({
  me: {
    method: 'GET',
    path: '/console/api/me',
    summary: 'User, balance, plan and quota',
    auth: 'user',
    responses: {
      200: answer({
        user: ref('User', User),
        balance: rTokens,
        available: rTokens,
        plan: orNull(answer({ id: rStr, name: rStr, ends_at: rTime })),
        quota: orNull(
          answer({
            calls_per_day: rInt,
            concurrency: orNull(rInt),
            cache_free: rBool,
            used_today: rInt,
            remaining_today: rInt,
          }),
        ),
      }),
    },
  },
});
