// Admin area: statistics, users and grants, redeem-code batches, order confirmation. The links only show for
// admins, but the protection is the server's: every /console/api/admin route answers 403 to anyone else.

import { get } from '../api.js';
import { dailyChart } from '../chart.js';
import { clear, h } from '../dom.js';
import { int, lastDays, tokens } from '../format.js';
import type { MessageKey } from '../i18n/index.js';
import { t } from '../i18n/index.js';
import { attachPendingBadge } from '../pending-badge.js';
import { revealActive } from '../reveal-active.js';
import type { Route } from '../router.js';
import { link } from '../router.js';
import type { Reply } from '../types.js';
import { card, pageHeader, stat, table } from '../ui.js';
import { renderAdminAudit } from './admin-audit.js';
import { availabilityCard } from './admin-availability.js';
import { canariesCard } from './admin-canaries.js';
import { renderAdminCodes } from './admin-codes.js';
import { operationsCard, revenueCard } from './admin-insight.js';
import { renderAdminMail } from './admin-mail.js';
import { marginCard } from './admin-margin.js';
import { renderAdminOrders } from './admin-orders.js';
import { upstreamsCard } from './admin-upstreams.js';
import { renderAdminUser } from './admin-user.js';
import { renderAdminUsers } from './admin-users.js';
import { webhooksPanel } from './webhooks-panel.js';

const SECTIONS: Array<[string, MessageKey]> = [
  ['', 'admin.stats'],
  ['users', 'admin.users'],
  ['codes', 'admin.codes'],
  ['orders', 'admin.orders'],
  ['audit', 'audit.title'],
  ['webhooks', 'notify.operatorWebhooks'],
  ['mail', 'mail.title'],
];

async function renderStats(main: HTMLElement): Promise<void> {
  const [stats, revenue, health, availability, upstreams, margin, canaries] = await Promise.all([
    get<Reply<'adminStats'>>('admin/stats?days=30'),
    revenueCard(),
    operationsCard(),
    availabilityCard(),
    upstreamsCard(),
    marginCard(),
    canariesCard(),
  ]);
  const days = lastDays(30);
  const byDay = new Map(stats.days.map((d) => [d.day, d]));
  const chartSlot = h('div');
  main.append(
    h(
      'div',
      { class: 'stats' },
      stat(t('admin.totalUsers'), int(stats.users)),
      stat(t('admin.calls30'), int(stats.totals.calls), t('admin.successes', { n: int(stats.totals.successes) })),
      stat(t('admin.revenue30'), tokens(stats.totals.revenue), 'TOKEN'),
    ),
    card(t('admin.chartTitle'), chartSlot),
    revenue,
    health,
    margin,
    canaries,
    availability,
    upstreams,
    card(
      t('admin.perDay'),
      table(
        [t('col.day'), t('col.calls'), t('col.successes'), t('col.revenue'), t('admin.topOps')],
        [...stats.days]
          .reverse()
          .map((d) => [
            d.day,
            int(d.calls),
            int(d.successes),
            tokens(d.revenue),
            h(
              'span',
              { class: 'small' },
              d.top_operations.map((o) => `${o.operation ?? '—'} ${int(o.calls)}`).join(' · '),
            ),
          ]),
        t('admin.noCalls'),
      ),
    ),
  );
  clear(
    chartSlot,
    dailyChart({
      days,
      bars: days.map((d) => byDay.get(d)?.calls ?? 0),
      line: days.map((d) => byDay.get(d)?.revenue ?? 0),
      barLabel: t('chart.calls'),
      lineLabel: t('chart.revenue'),
      emptyText: t('admin.noCalls'),
    }),
  );
}

export async function renderAdmin(main: HTMLElement, route: Route): Promise<void> {
  const section = route.parts[1] ?? '';
  // admin/users/<id>: one user in depth, without the section navigation.
  if (section === 'users' && route.parts[2]) return renderAdminUser(main, route.parts[2]);
  const nav = h(
    'nav',
    { class: 'subnav' },
    SECTIONS.map(([path, key]) => {
      const a = link(path ? `admin/${path}` : 'admin', t(key));
      if (path === section) a.classList.add('active');
      if (path === 'orders') attachPendingBadge(a);
      return a;
    }),
  );
  main.append(pageHeader(t('admin.title'), t('admin.subtitle')), nav);
  revealActive(nav);
  const body = h('div');
  main.append(body);
  if (section === 'users') await renderAdminUsers(body);
  else if (section === 'codes') await renderAdminCodes(body);
  else if (section === 'orders') await renderAdminOrders(body);
  else if (section === 'audit') await renderAdminAudit(body);
  else if (section === 'webhooks') body.append(webhooksPanel('admin/webhooks'));
  else if (section === 'mail') await renderAdminMail(body);
  else await renderStats(body);
}
