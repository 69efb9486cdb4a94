// POST /console/api/keys/:id/rotate: a new secret for the same key. The id, name, limits, call log and usage
// stay; the old secret keeps working for `grace_hours` (default 24, 0 ends it now) so deployed clients can move
// over without downtime. Every process forgets the key's cached identity at once.
import type Router from '@koa/router';
import { rotateApiKey } from '../../accounts/api-keys.js';
import { ApiError } from '../../http/errors.js';
import type { Services } from '../../services.js';
import { audit } from './audit.js';
import { requireUser, userOf } from './auth.js';
import { bodyOf, idParam, reqInt } from './input.js';
import { iso, presentKey } from './present.js';

const HOUR_MS = 3600_000;
export const MAX_GRACE_HOURS = 24 * 30;
export const DEFAULT_GRACE_HOURS = 24;

export function keyRotationRoutes(router: Router, s: Services): void {
  router.post('/console/api/keys/:id/rotate', requireUser(s), async (ctx) => {
    const user = userOf(ctx);
    const id = idParam(ctx.params.id, 'API key');
    const b = bodyOf(ctx, ['grace_hours']);
    const graceHours = b.grace_hours === undefined ? DEFAULT_GRACE_HOURS : reqInt(b, 'grace_hours', 0, MAX_GRACE_HOURS);
    const rotated = await rotateApiKey(s.store.db, user.id, id, graceHours * HOUR_MS);
    if (!rotated) throw new ApiError('RESOURCE_NOT_FOUND', `There is no API key ${id}.`);
    s.keys.invalidateUser(user.id);
    await s.state.publishRevocation(user.id);
    const oldUntil = rotated.key.prev_expires_at === null ? null : iso(rotated.key.prev_expires_at);
    await audit(ctx, s, {
      action: 'key.rotate',
      targetType: 'api_key',
      targetId: id,
      subjectUserId: user.id,
      detail: { prefix: rotated.key.prefix, grace_hours: graceHours },
    });
    ctx.body = { key: presentKey(rotated.key), secret: rotated.secret, old_secret_valid_until: oldUntil };
  });
}
