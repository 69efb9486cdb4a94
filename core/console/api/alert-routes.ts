// /console/api/alerts: the user's low-balance line (TOKEN), plan-quota percentage and mail switch. Webhook and
// chat-bot channels are webhooks subscribed to balance.low (/console/api/webhooks).
import type Router from '@koa/router';
import { toToken } from '../../kernel/money.js';
import { type AlertSettings, readAlertSettings, saveAlertSettings } from '../../notify/alerts/alert-settings.js';
import type { Services } from '../../services.js';
import { audit } from './audit.js';
import { requireUser, userOf } from './auth.js';
import { bodyOf, invalid, reqInt, reqTokens } from './input.js';
import { iso } from './present.js';

function presentAlerts(a: AlertSettings | undefined): Record<string, unknown> {
  return {
    balance_threshold: a?.balance_threshold == null ? null : toToken(Number(a.balance_threshold)),
    quota_percent: a?.quota_percent ?? null,
    email: a ? Number(a.email) === 1 : false,
    armed: a ? Number(a.armed) === 1 : true,
    last_fired_at: iso(a?.last_fired_at ?? null),
  };
}

export function alertRoutes(router: Router, s: Services): void {
  const db = s.store.db;
  const auth = requireUser(s);

  router.get('/console/api/alerts', auth, async (ctx) => {
    ctx.body = { alerts: presentAlerts(await readAlertSettings(db, userOf(ctx).id)) };
  });

  router.put('/console/api/alerts', auth, async (ctx) => {
    const user = userOf(ctx);
    const b = bodyOf(ctx, ['balance_threshold', 'quota_percent', 'email']);
    const threshold =
      b.balance_threshold === undefined || b.balance_threshold === null ? null : reqTokens(b, 'balance_threshold');
    if (threshold !== null && threshold <= 0)
      throw invalid(`'balance_threshold' must be a positive TOKEN amount, or null for no alert.`);
    const quotaPercent =
      b.quota_percent === undefined || b.quota_percent === null ? null : reqInt(b, 'quota_percent', 1, 99);
    if (b.email !== undefined && typeof b.email !== 'boolean') throw invalid(`'email' must be true or false.`);
    const before = await readAlertSettings(db, user.id);
    const saved = await saveAlertSettings(db, user.id, {
      balanceThreshold: threshold,
      quotaPercent,
      email: b.email === true,
    });
    s.alerts.setLines(user.id, threshold, quotaPercent);
    await audit(ctx, s, {
      action: 'alerts.update',
      targetType: 'alerts',
      targetId: user.id,
      subjectUserId: user.id,
      detail: { from: presentAlerts(before), to: presentAlerts(saved) },
    });
    ctx.body = { alerts: presentAlerts(saved) };
  });
}
