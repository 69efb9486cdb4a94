// Admin overview cards: revenue from paid orders (plans and packages, money per currency, refunds) and the
// health of each operation (success rate, p50/p95/p99 latency) over a window the admin picks.

import { get } from '../api.js';
import { clear, h } from '../dom.js';
import { int, ms, tokens } from '../format.js';
import { t } from '../i18n/index.js';
import type { Reply } from '../types.js';
import { badge, card, messageSlot, stat, table, tabs } from '../ui.js';

type OpHealth = Reply<'adminOperationHealth'>['operations'][number];

/** "¥20.00 · $3.50"; 0.00 when nothing moved. */
function money(m: Record<string, number>): string {
  const sign: Record<string, string> = { CNY: '¥', USD: '$' };
  const parts = Object.entries(m).map(([c, v]) => `${sign[c] ?? `${c} `}${v.toFixed(2)}`);
  return parts.length ? parts.join(' · ') : '0.00';
}

export async function revenueCard(): Promise<HTMLElement> {
  const r = await get<Reply<'adminRevenue'>>('admin/revenue?days=30');
  const x = r.totals;
  return card(
    t('admin.revenueTitle'),
    h(
      'div',
      { class: 'stats', attrs: { 'data-testid': 'revenue-totals' } },
      stat(t('admin.revenuePaid'), money(x.paid), undefined, 'revenue-paid'),
      stat(t('admin.revenueRefunded'), money(x.refunded), undefined, 'revenue-refunded'),
      stat(
        t('admin.revenueOrders'),
        int(x.orders),
        t('admin.revenueSplit', { plans: int(x.plans), packages: int(x.packages) }),
        'revenue-orders',
      ),
      stat(t('admin.revenueValue'), tokens(x.value), 'TOKEN'),
    ),
    table(
      [
        t('col.day'),
        t('admin.revenueOrders'),
        t('admin.revenuePaid'),
        t('admin.revenueRefunded'),
        t('admin.revenueValue'),
      ],
      [...r.days]
        .reverse()
        .map((d) => [
          d.day,
          `${int(d.orders)} (${t('admin.revenueSplit', { plans: int(d.plans), packages: int(d.packages) })})`,
          money(d.paid),
          money(d.refunded),
          tokens(d.value),
        ]),
      t('admin.noRevenue'),
      'revenue-table',
    ),
  );
}

type Window = '1' | '24' | '168' | '720';
const WINDOW_LABEL = {
  '1': 'admin.opsWindow1',
  '24': 'admin.opsWindow24',
  '168': 'admin.opsWindow168',
  '720': 'admin.opsWindow720',
} as const;

export async function operationsCard(): Promise<HTMLElement> {
  const msg = messageSlot();
  const slot = h('div');
  const load = async (hours: Window): Promise<void> => {
    try {
      const ops = (await get<Reply<'adminOperationHealth'>>(`admin/operation-health?hours=${hours}`)).operations;
      const rate = (o: OpHealth) =>
        badge(`${(o.success_rate * 100).toFixed(1)}%`, o.success_rate < 0.95 ? 'err' : 'ok');
      clear(
        slot,
        table(
          [t('col.operation'), t('col.calls'), t('admin.successRate'), t('admin.errors'), 'p50', 'p95', 'p99'],
          ops.map((o) => [
            h('code', null, o.operation),
            int(o.calls),
            rate(o),
            int(o.errors),
            ms(o.p50_ms),
            ms(o.p95_ms),
            ms(o.p99_ms),
          ]),
          t('admin.noOps'),
          'ops-health-table',
        ),
      );
    } catch (err) {
      msg.error(err);
    }
  };
  const windows = (Object.keys(WINDOW_LABEL) as Window[]).map((w): [Window, string] => [w, t(WINDOW_LABEL[w])]);
  const el = card(
    t('admin.opsTitle'),
    h('p', { class: 'small muted' }, t('admin.opsHint')),
    tabs<Window>(windows, '24', (w) => void load(w)),
    msg.el,
    slot,
  );
  await load('24');
  return el;
}
