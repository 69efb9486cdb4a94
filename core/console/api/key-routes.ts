// /console/api/keys: a user's API keys. The secret is returned once, at creation; every change takes effect on
// the key's next call (the key cache is invalidated here and in every other process).
import type Router from '@koa/router';
import type { Context } from 'koa';
import { createApiKey, deleteApiKey, listApiKeys, updateApiKey } from '../../accounts/api-keys.js';
import { DETAILS } from '../../http/error-details.js';
import { ApiError } from '../../http/errors.js';
import type { Services } from '../../services.js';
import { audit } from './audit.js';
import { requireUser, userOf } from './auth.js';
import { spendIpBudget } from './auth-limits.js';
import { bodyOf, idParam, invalid, reqString } from './input.js';
import { LIMIT_FIELDS, parseKeyLimits } from './key-limits.js';
import { presentKey } from './present.js';

const MAX_KEYS_PER_USER = 50;

/** The audit detail of a PATCH: only the fields whose shown value changed, as {from, to}. */
function keyChanges(before: Record<string, unknown>, after: Record<string, unknown>): Record<string, unknown> {
  const flat = (k: Record<string, unknown>): Record<string, unknown> => ({
    name: k.name,
    status: k.status,
    ...(k.limits as Record<string, unknown>),
  });
  const a = flat(before);
  const b = flat(after);
  const out: Record<string, unknown> = {};
  for (const f of Object.keys(b)) if (JSON.stringify(a[f]) !== JSON.stringify(b[f])) out[f] = { from: a[f], to: b[f] };
  return out;
}

export function keyRoutes(router: Router, s: Services): void {
  const db = s.store.db;
  const auth = requireUser(s);

  const changed = async (userId: number): Promise<void> => {
    s.keys.invalidateUser(userId);
    await s.state.publishRevocation(userId);
  };
  const notFound = (ctx: Context): ApiError =>
    new ApiError('RESOURCE_NOT_FOUND', `There is no API key ${String(ctx.params.id).slice(0, 20)}.`);

  router.get('/console/api/keys', auth, async (ctx) => {
    ctx.body = { keys: (await listApiKeys(db, userOf(ctx).id)).map(presentKey) };
  });

  router.post('/console/api/keys', auth, async (ctx) => {
    const user = userOf(ctx);
    const b = bodyOf(ctx, ['name', ...LIMIT_FIELDS]);
    const name = b.name === undefined ? 'default' : reqString(b, 'name', 64);
    const limits = parseKeyLimits(b, s.registry.current);
    await spendIpBudget(ctx, s, 'keyCreate');
    if ((await listApiKeys(db, user.id)).length >= MAX_KEYS_PER_USER) {
      throw new ApiError('CONFLICT', DETAILS.keyLimit(MAX_KEYS_PER_USER));
    }
    const { key, secret } = await createApiKey(db, user.id, name.trim(), limits);
    await audit(ctx, s, {
      action: 'key.create',
      targetType: 'api_key',
      targetId: Number(key.id),
      subjectUserId: user.id,
      detail: { name: key.name, prefix: key.prefix, limits: presentKey(key).limits },
    });
    ctx.status = 201;
    ctx.body = { key: presentKey(key), secret };
  });

  router.patch('/console/api/keys/:id', auth, async (ctx) => {
    const user = userOf(ctx);
    const id = idParam(ctx.params.id, 'API key');
    const b = bodyOf(ctx, ['name', 'disabled', ...LIMIT_FIELDS]);
    if (Object.keys(b).length === 0) throw invalid('Nothing to change: send name, disabled or a limit.');
    if ('disabled' in b && typeof b.disabled !== 'boolean') throw invalid(`'disabled' must be true or false.`);
    const changes = {
      ...parseKeyLimits(b, s.registry.current),
      ...(b.name !== undefined ? { name: reqString(b, 'name', 64).trim() } : {}),
      ...(typeof b.disabled === 'boolean' ? { status: b.disabled ? ('disabled' as const) : ('active' as const) } : {}),
    };
    const before = (await listApiKeys(db, user.id)).find((k) => Number(k.id) === id);
    const key = await updateApiKey(db, user.id, id, changes);
    if (!key || !before) throw notFound(ctx);
    await changed(user.id);
    await audit(ctx, s, {
      action: 'key.update',
      targetType: 'api_key',
      targetId: id,
      subjectUserId: user.id,
      detail: keyChanges(presentKey(before), presentKey(key)),
    });
    ctx.body = { key: presentKey(key) };
  });

  router.delete('/console/api/keys/:id', auth, async (ctx) => {
    const user = userOf(ctx);
    const id = idParam(ctx.params.id, 'API key');
    if (!(await deleteApiKey(db, user.id, id))) throw notFound(ctx);
    await changed(user.id);
    await audit(ctx, s, { action: 'key.delete', targetType: 'api_key', targetId: id, subjectUserId: user.id });
    ctx.body = { deleted: true, id };
  });
}
