// Dashboard: money, plan and today's quota, 30 days of calls and spend, and the three steps to a first call.

import { get } from '../api.js';
import { dailyChart } from '../chart.js';
import { append, clear, h } from '../dom.js';
import { date, int, tokens } from '../format.js';
import { t } from '../i18n/index.js';
import { loadMe } from '../layout.js';
import { pendingNotice } from '../pending-badge.js';
import type { Route } from '../router.js';
import { link } from '../router.js';
import { isAdmin } from '../session.js';
import type { Reply } from '../types.js';
import { card, errorText, notice, pageHeader, stat, table } from '../ui.js';
import { dailyUsage } from '../usage-data.js';

/** Below this many TOKEN (and with no plan) the dashboard suggests topping up. */
export const LOW_BALANCE = 1;

/**
 * The steps to a first successful call. An account that cannot pay for one yet (no balance, no free quota)
 * gets a top-up step before the debugger, so the steps it is shown end in a 200, not a 402.
 */
function quickStart(canCall: boolean): HTMLElement {
  const steps: Array<[id: string, title: string, text: string, path: string, action: string]> = [
    ['key', t('dash.step1'), t('dash.step1Text'), 'keys', t('dash.step1Action')],
    ...(canCall
      ? []
      : [
          ['topup', t('dash.stepTopUp'), t('dash.stepTopUpText'), 'billing', t('dash.topUp')] as [
            string,
            string,
            string,
            string,
            string,
          ],
        ]),
    ['try', t('dash.step2'), t('dash.step2Text'), 'debugger', t('dash.step2Action')],
    ['code', t('dash.step3'), t('dash.step3Text'), 'docs', t('dash.step3Action')],
  ];
  return card(
    t('dash.quickStart'),
    h(
      'ol',
      { class: 'steps', attrs: { 'data-testid': 'quick-start' } },
      steps.map(([id, title, text, path, action], i) =>
        h(
          'li',
          { class: 'step', attrs: { 'data-step': id } },
          h('span', { class: 'step-n' }, String(i + 1)),
          h('div', null, h('strong', null, title), h('p', { class: 'muted' }, text), link(path, action)),
        ),
      ),
    ),
  );
}

/** TOKEN given on sign-up (0 when none, or when the server does not say). */
export async function trialTokens(): Promise<number> {
  try {
    return (await get<Reply<'offer'>>('offer')).trial_tokens || 0;
  } catch {
    return 0;
  }
}

export async function renderDashboard(main: HTMLElement, route: Route): Promise<void> {
  const welcome = route.query.get('welcome') === '1';
  const [me, series, trial] = await Promise.all([loadMe(true), dailyUsage(30), welcome ? trialTokens() : 0]);
  const quotaLeft = Boolean(me.quota && me.quota.remaining_today > 0);
  const canCall = me.available > 0 || quotaLeft;
  const fresh = series.totalCalls === 0;
  // A new account with a little trial credit is told about the credit, not warned about it.
  const lowBalance = me.available < LOW_BALANCE && !quotaLeft && !(welcome && canCall);
  const planText = me.plan ? me.plan.name : t('dash.noPlan');
  const planSub =
    me.plan && me.quota
      ? t('dash.quotaLeft', { left: int(me.quota.remaining_today), total: int(me.quota.calls_per_day) })
      : t('dash.payPerCall');
  const chartSlot = h('div');
  append(
    main,
    pageHeader(t('dash.title'), t('dash.hello', { email: me.user.email })),
    isAdmin() ? pendingNotice() : null,
    welcome
      ? notice(
          'ok',
          h('span', { attrs: { 'data-testid': 'welcome' } }, t('dash.welcome')),
          trial > 0 && me.available > 0
            ? [
                ' ',
                h(
                  'strong',
                  { attrs: { 'data-testid': 'trial-granted' } },
                  t('dash.trialGranted', { n: tokens(trial) }),
                ),
              ]
            : null,
        )
      : null,
    lowBalance
      ? notice(
          'warn',
          h('strong', null, t('dash.lowBalance')),
          ' ',
          t('dash.lowBalanceText', { amount: tokens(me.available) }),
          ' ',
          link('billing', t('dash.topUp')),
        )
      : null,
    h(
      'div',
      { class: 'stats' },
      stat(
        t('dash.available'),
        `${tokens(me.available)}`,
        me.balance !== me.available ? t('dash.heldNote', { balance: tokens(me.balance) }) : 'TOKEN',
        'available',
      ),
      stat(
        t('dash.plan'),
        planText,
        me.plan?.ends_at ? `${planSub} · ${t('dash.until', { date: date(me.plan.ends_at) })}` : planSub,
        'plan',
      ),
      stat(t('dash.calls30'), int(series.totalCalls), t('dash.last30'), 'calls'),
      stat(t('dash.spend30'), tokens(series.totalSpend), 'TOKEN', 'spend'),
    ),
    // Before the first call the steps to it come first (on a phone, not below an empty chart).
    fresh ? quickStart(canCall) : null,
    card(t('dash.chartTitle'), chartSlot),
    h(
      'div',
      { class: fresh ? '' : 'grid-2' },
      fresh ? null : quickStart(canCall),
      card(
        t('dash.topOps'),
        table(
          [t('col.operation'), t('col.calls'), t('col.successes'), t('col.charged')],
          series.usage.by_operation
            .slice(0, 6)
            .map((o) => [h('code', null, o.operation ?? '—'), int(o.calls), int(o.successes), tokens(o.charged)]),
          t('dash.noCalls'),
        ),
      ),
    ),
  );
  try {
    clear(
      chartSlot,
      dailyChart({
        days: series.days,
        bars: series.calls,
        line: series.spend,
        barLabel: t('chart.calls'),
        lineLabel: t('chart.spend'),
        emptyText: t('dash.noCalls'),
      }),
    );
  } catch (err) {
    clear(chartSlot, notice('err', errorText(err)));
  }
}
