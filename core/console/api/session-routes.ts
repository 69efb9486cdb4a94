// The user's own console sessions (user tokens): list them, end one, end every other one, or end all of them
// ("sign out everywhere": this browser too, e.g. after using a shared computer or losing a laptop).
import type Router from '@koa/router';
import { ApiError } from '../../http/errors.js';
import type { Services } from '../../services.js';
import { requireUser, tokenHashOf, userOf } from './auth.js';
import { idParam } from './input.js';
import { iso } from './present.js';

export function sessionRoutes(router: Router, s: Services): void {
  const db = s.store.db;

  router.get('/console/api/me/sessions', requireUser(s), async (ctx) => {
    const now = Date.now();
    const rows = await db
      .selectFrom('user_tokens')
      .select(['id', 'token_hash', 'created_at', 'expires_at'])
      .where('user_id', '=', userOf(ctx).id)
      .where('revoked_at', 'is', null)
      .where('expires_at', '>', now)
      .orderBy('id', 'desc')
      .limit(100)
      .execute();
    const current = tokenHashOf(ctx);
    ctx.body = {
      items: rows.map((r) => ({
        id: Number(r.id),
        created_at: iso(r.created_at),
        expires_at: iso(r.expires_at),
        current: r.token_hash === current,
      })),
    };
  });

  router.delete('/console/api/me/sessions/:id', requireUser(s), async (ctx) => {
    const id = idParam(ctx.params.id, 'session');
    const res = await db
      .updateTable('user_tokens')
      .set({ revoked_at: Date.now() })
      .where('id', '=', id)
      .where('user_id', '=', userOf(ctx).id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) === 0) throw new ApiError('RESOURCE_NOT_FOUND', 'There is no such active session.');
    ctx.body = { revoked: true };
  });

  router.post('/console/api/me/sessions/revoke-others', requireUser(s), async (ctx) => {
    const res = await db
      .updateTable('user_tokens')
      .set({ revoked_at: Date.now() })
      .where('user_id', '=', userOf(ctx).id)
      .where('revoked_at', 'is', null)
      .where('token_hash', '!=', tokenHashOf(ctx))
      .executeTakeFirst();
    ctx.body = { revoked: Number(res.numUpdatedRows) };
  });

  router.post('/console/api/me/sessions/revoke-all', requireUser(s), async (ctx) => {
    const res = await db
      .updateTable('user_tokens')
      .set({ revoked_at: Date.now() })
      .where('user_id', '=', userOf(ctx).id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    ctx.body = { revoked: Number(res.numUpdatedRows) };
  });
}
