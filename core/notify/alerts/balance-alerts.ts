// Low-balance and plan-quota alerts, fired by the call that crosses the user's line (not a poller). The billed
// path calls `afterCapture` after its commit: a Map lookup and a few comparisons, no database work and nothing
// awaited, unless this very call crossed a line. The lines live in memory as a snapshot of alert_settings,
// refreshed every minute (changes made through this process apply at once).
import type { Kysely } from 'kysely';
import { chinaDay } from '../../kernel/china-day.js';
import type { Logger } from '../../kernel/logger.js';
import { toToken } from '../../kernel/money.js';
import type { Database } from '../../store/schema.js';
import type { Webhooks } from '../webhooks/webhooks.js';
import { lowBalanceMail, lowQuotaMail } from './alert-mail.js';
import { allAlertLines, claimQuotaNotice, markFired, readAlertSettings, rearm } from './alert-settings.js';

/** Structurally the Mailer's send (core/accounts/mail/mailer.ts), so this module does not depend on it. */
export type SendMail = (msg: { to: string; subject: string; text: string }) => Promise<{ ok: boolean }>;

export interface BalanceAlerts {
  /** After a committed balance change (micro-TOKEN); never throws, never waits. */
  observe(userId: number, before: number, after: number): void;
  /** After a captured /api call: its charge and, for a plan call, the quota used today including it. */
  afterCapture(
    userId: number,
    charged: number,
    balanceAfter: number | undefined,
    quota: { used: number; limit: number } | undefined,
  ): void;
  /** The user's lines changed (this process). */
  setLines(userId: number, threshold: number | null, quotaPercent: number | null): void;
  refresh(): Promise<void>;
  /** Resolves when every alert started so far has been handled (tests, shutdown). */
  idle(): Promise<void>;
}

export interface BalanceAlertOptions {
  db: Kysely<Database>;
  logger: Logger;
  webhooks: Webhooks;
  sendMail?: SendMail;
  clock?: () => number;
  refreshMs?: number;
}

interface Line {
  threshold: number | null;
  quotaPercent: number | null;
  armed: boolean;
}

export function createBalanceAlerts(o: BalanceAlertOptions): BalanceAlerts {
  const clock = o.clock ?? Date.now;
  const refreshMs = o.refreshMs ?? 60_000;
  let lines = new Map<number, Line>();
  let loadedAt = 0;
  let loading: Promise<void> | null = null;
  const pending = new Set<Promise<void>>();

  const track = (p: Promise<void>): void => {
    const done = p
      .catch((e: Error) => o.logger.error('alert failed', { reason: e.message }))
      .finally(() => pending.delete(done));
    pending.add(done);
  };

  async function load(): Promise<void> {
    const rows = await allAlertLines(o.db);
    lines = new Map(
      rows.map((r) => [r.userId, { threshold: r.threshold, quotaPercent: r.quotaPercent, armed: r.armed }]),
    );
    loadedAt = clock();
  }
  const refresh = (): Promise<void> => (loading ??= load().finally(() => (loading = null)));

  async function notify(
    userId: number,
    data: Record<string, unknown>,
    mail: (email: string) => { subject: string; text: string },
  ): Promise<void> {
    const settings = await readAlertSettings(o.db, userId);
    const user = await o.db.selectFrom('users').select('email').where('id', '=', userId).executeTakeFirst();
    await o.webhooks.emit(
      'balance.low',
      { user_id: userId, email: user?.email ?? null, ...data, at: new Date(clock()).toISOString() },
      userId,
    );
    if (settings?.email === 1 && user && o.sendMail) {
      const sent = await o.sendMail({ to: user.email, ...mail(user.email) });
      if (!sent.ok) o.logger.warn('alert mail failed', { user: userId });
    }
    o.logger.info('low-balance alert', { user: userId, ...data });
  }

  async function fireBalance(userId: number, threshold: number, balance: number): Promise<void> {
    if (!(await markFired(o.db, userId, threshold, clock()))) return;
    const data = { balance: toToken(balance), threshold: toToken(threshold) };
    await notify(userId, data, () => lowBalanceMail(data.balance, data.threshold));
  }

  async function fireQuota(userId: number, percent: number, left: number, limit: number): Promise<void> {
    if (!(await claimQuotaNotice(o.db, userId, chinaDay(clock()), percent, clock()))) return;
    await notify(userId, { reason: 'plan_quota', quota_left: left, quota_limit: limit, percent }, () =>
      lowQuotaMail(left, limit, percent),
    );
  }

  const observe = (userId: number, before: number, after: number): void => {
    if (clock() - loadedAt > refreshMs) track(refresh());
    const line = lines.get(userId);
    if (!line || line.threshold === null) return;
    if (before >= line.threshold && after < line.threshold) {
      line.armed = false;
      track(fireBalance(userId, line.threshold, after));
    } else if (!line.armed && after >= line.threshold) {
      line.armed = true;
      track(rearm(o.db, userId));
    }
  };

  return {
    observe,
    afterCapture(userId, charged, balanceAfter, quota) {
      if (charged > 0 && balanceAfter !== undefined) observe(userId, balanceAfter + charged, balanceAfter);
      const pct = quota && quota.limit > 0 ? lines.get(userId)?.quotaPercent : null;
      if (!quota || !pct) return;
      // Calls left today before and after this one, against the line of `pct` percent of the daily limit.
      const line = (quota.limit * pct) / 100;
      const leftAfter = quota.limit - quota.used;
      if (leftAfter + 1 >= line && leftAfter < line) track(fireQuota(userId, pct, leftAfter, quota.limit));
    },
    setLines(userId, threshold, quotaPercent) {
      if (threshold === null && quotaPercent === null) lines.delete(userId);
      else lines.set(userId, { threshold, quotaPercent, armed: true });
    },
    refresh,
    async idle() {
      while (pending.size > 0) await Promise.all([...pending]);
    },
  };
}
