// Dashboard: money, plan and today's quota, 30 days of calls and spend, and the three steps to a first call.

import { dailyChart } from '../chart.js';
import { append, clear, h } from '../dom.js';
import { date, int, tokens } from '../format.js';
import { t } from '../i18n/index.js';
import { loadMe } from '../layout.js';
import type { Route } from '../router.js';
import { link } from '../router.js';
import { card, errorText, notice, pageHeader, stat, table } from '../ui.js';
import { dailyUsage } from '../usage-data.js';

/** Below this many TOKEN (and with no plan) the dashboard suggests topping up. */
export const LOW_BALANCE = 1;

function quickStart(): HTMLElement {
  const step = (n: number, title: string, text: string, path: string, action: string): HTMLElement =>
    h(
      'li',
      { class: 'step' },
      h('span', { class: 'step-n' }, String(n)),
      h('div', null, h('strong', null, title), h('p', { class: 'muted' }, text), link(path, action)),
    );
  return card(
    t('dash.quickStart'),
    h(
      'ol',
      { class: 'steps' },
      step(1, t('dash.step1'), t('dash.step1Text'), 'keys', t('dash.step1Action')),
      step(2, t('dash.step2'), t('dash.step2Text'), 'debugger', t('dash.step2Action')),
      step(3, t('dash.step3'), t('dash.step3Text'), 'docs', t('dash.step3Action')),
    ),
  );
}

export async function renderDashboard(main: HTMLElement, route: Route): Promise<void> {
  const [me, series] = await Promise.all([loadMe(true), dailyUsage(30)]);
  const welcome = route.query.get('welcome') === '1';
  const lowBalance = me.available < LOW_BALANCE && !(me.quota && me.quota.remaining_today > 0);
  const planText = me.plan ? me.plan.name : t('dash.noPlan');
  const planSub =
    me.plan && me.quota
      ? t('dash.quotaLeft', { left: int(me.quota.remaining_today), total: int(me.quota.calls_per_day) })
      : t('dash.payPerCall');
  const chartSlot = h('div');
  append(
    main,
    pageHeader(t('dash.title'), t('dash.hello', { email: me.user.email })),
    welcome ? notice('ok', t('dash.welcome')) : null,
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
    card(t('dash.chartTitle'), chartSlot),
    h(
      'div',
      { class: 'grid-2' },
      quickStart(),
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
