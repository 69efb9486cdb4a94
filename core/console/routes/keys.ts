// /console/api/keys (core/console/contract/keys.ts): a user's API keys. Every change takes effect on the key's
// next call (the key cache is invalidated here and in every other process). A rotation keeps the id, name,
// limits, call log and usage; the old secret keeps working for grace_hours so deployed clients can move over.
import { createApiKey, deleteApiKey, listApiKeys, rotateApiKey, updateApiKey } from '../../accounts/api-keys.js';
import { DETAILS } from '../../http/error-details.js';
import { ApiError } from '../../http/errors.js';
import type { Services } from '../../services.js';
import { audit } from '../api/audit.js';
import { spendIpBudget } from '../api/auth-limits.js';
import { iso, presentKey } from '../api/present.js';
import { KEYS } from '../contract/keys.js';
import { invalid } from './input-checks.js';
import { parseKeyLimits } from './key-limits.js';
import { implement } from './mount-routes.js';

const MAX_KEYS_PER_USER = 50;
const HOUR_MS = 3600_000;
const DEFAULT_GRACE_HOURS = 24;

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

const notFound = (id: number): ApiError => new ApiError('RESOURCE_NOT_FOUND', `There is no API key ${id}.`);

export function keyRoutes(s: Services) {
  const db = s.store.db;
  /** Every process forgets the user's cached keys. */
  const changed = async (userId: number): Promise<void> => {
    s.keys.invalidateUser(userId);
    await s.state.publishRevocation(userId);
  };

  return implement(KEYS, {
    listKeys: async ({ user }) => ({ keys: (await listApiKeys(db, user.id)).map(presentKey) }),

    createKey: async ({ user, body }, ctx) => {
      const { name = 'default', ...limitFields } = body;
      const limits = parseKeyLimits(limitFields, s.registry.current);
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
      return { key: presentKey(key), secret };
    },

    updateKey: async ({ user, params: { id }, body }, ctx) => {
      if (Object.keys(body).length === 0) throw invalid('Nothing to change: send name, disabled or a limit.');
      const { name, disabled, ...limitFields } = body;
      const changes = {
        ...parseKeyLimits(limitFields, s.registry.current),
        ...(name !== undefined ? { name: name.trim() } : {}),
        ...(disabled !== undefined ? { status: disabled ? ('disabled' as const) : ('active' as const) } : {}),
      };
      const before = (await listApiKeys(db, user.id)).find((k) => Number(k.id) === id);
      const key = await updateApiKey(db, user.id, id, changes);
      if (!key || !before) throw notFound(id);
      await changed(user.id);
      await audit(ctx, s, {
        action: 'key.update',
        targetType: 'api_key',
        targetId: id,
        subjectUserId: user.id,
        detail: keyChanges(presentKey(before), presentKey(key)),
      });
      return { key: presentKey(key) };
    },

    deleteKey: async ({ user, params: { id } }, ctx) => {
      if (!(await deleteApiKey(db, user.id, id))) throw notFound(id);
      await changed(user.id);
      await audit(ctx, s, { action: 'key.delete', targetType: 'api_key', targetId: id, subjectUserId: user.id });
      return { deleted: true as const, id };
    },

    rotateKey: async ({ user, params: { id }, body }, ctx) => {
      const graceHours = body.grace_hours ?? DEFAULT_GRACE_HOURS;
      const rotated = await rotateApiKey(db, user.id, id, graceHours * HOUR_MS);
      if (!rotated) throw notFound(id);
      await changed(user.id);
      const oldUntil = rotated.key.prev_expires_at === null ? null : iso(rotated.key.prev_expires_at);
      await audit(ctx, s, {
        action: 'key.rotate',
        targetType: 'api_key',
        targetId: id,
        subjectUserId: user.id,
        detail: { prefix: rotated.key.prefix, grace_hours: graceHours },
      });
      return { key: presentKey(rotated.key), secret: rotated.secret, old_secret_valid_until: oldUntil };
    },
  });
}
