// The user's alert settings (core/console/contract/alerts.ts).
import { toToken } from '../../kernel/money.js';
import { type AlertSettings, readAlertSettings, saveAlertSettings } from '../../notify/alerts/alert-settings.js';
import type { Services } from '../../services.js';
import { audit } from '../api/audit.js';
import { reqTokens } from '../api/input.js';
import { iso } from '../api/present.js';
import { ALERTS } from '../contract/alerts.js';
import type { Alerts } from '../contract/components.js';
import { invalid } from './input-checks.js';
import { implement } from './mount-routes.js';

function presentAlerts(a: AlertSettings | undefined): Alerts {
  return {
    balance_threshold: a?.balance_threshold == null ? null : toToken(Number(a.balance_threshold)),
    quota_percent: a?.quota_percent ?? null,
    email: a ? Number(a.email) === 1 : false,
    armed: a ? Number(a.armed) === 1 : true,
    last_fired_at: iso(a?.last_fired_at ?? null),
  };
}

export function alertRoutes(s: Services) {
  const db = s.store.db;
  return implement(ALERTS, {
    alerts: async ({ user }) => ({ alerts: presentAlerts(await readAlertSettings(db, user.id)) }),

    setAlerts: async ({ user, body }, ctx) => {
      // The schema checked the types; a TOKEN amount's decimals and sign are checked here.
      const threshold =
        body.balance_threshold === undefined || body.balance_threshold === null
          ? null
          : reqTokens(body as Record<string, unknown>, 'balance_threshold');
      if (threshold !== null && threshold <= 0)
        throw invalid(`'balance_threshold' must be a positive TOKEN amount, or null for no alert.`);
      const quotaPercent = body.quota_percent ?? null;
      const before = await readAlertSettings(db, user.id);
      const saved = await saveAlertSettings(db, user.id, {
        balanceThreshold: threshold,
        quotaPercent,
        email: body.email === true,
      });
      s.alerts.setLines(user.id, threshold, quotaPercent);
      await audit(ctx, s, {
        action: 'alerts.update',
        targetType: 'alerts',
        targetId: user.id,
        subjectUserId: user.id,
        detail: { from: presentAlerts(before), to: presentAlerts(saved) },
      });
      return { alerts: presentAlerts(saved) };
    },
  });
}
