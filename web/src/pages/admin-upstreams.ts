// Admin overview card: each configured upstream of each operation (operations.yaml `upstreams:`) with whether it
// is in rotation now (or cooling down after failures, disabled by an error rule, demoted by its canary, and until
// when), its last error, what one call costs and its order (GET /console/api/admin/operations).

import { get } from '../api.js';
import { h } from '../dom.js';
import { dateTime, tokens } from '../format.js';
import { t } from '../i18n/index.js';
import type { Reply, UpstreamStatus } from '../types.js';
import { badge, card, table } from '../ui.js';

function stateBadge(u: UpstreamStatus): HTMLElement {
  if (u.missing.length > 0) return badge(t('admin.upstreamMissing', { names: u.missing.join(' + ') }), 'muted');
  const until = dateTime(u.until);
  const b =
    u.state === 'ok'
      ? badge(t('admin.upstreamOk'), 'ok')
      : u.state === 'cooling_down'
        ? badge(t('admin.upstreamCooling', { until }), 'warn')
        : u.state === 'disabled'
          ? badge(t('admin.upstreamDisabled', { until }), 'err')
          : badge(t('admin.upstreamDemoted', { until }), 'err');
  if (u.reason) b.title = u.reason;
  return b;
}

export async function upstreamsCard(): Promise<HTMLElement> {
  const { operations } = await get<Reply<'adminOperations'>>('admin/operations');
  const rows = operations.flatMap((o) =>
    o.upstreams.map((u) => [
      h('code', null, o.code),
      h('code', null, u.id),
      stateBadge(u),
      u.last_error ? [h('code', null, u.last_error.code), ' ', dateTime(u.last_error.at)] : '—',
      tokens(u.cost_per_call),
      `${u.priority} / ${u.weight}`,
    ]),
  );
  return card(
    t('admin.upstreamsTitle'),
    h('p', { class: 'small muted' }, t('admin.upstreamsHint')),
    table(
      [
        t('col.operation'),
        t('admin.upstream'),
        t('col.status'),
        t('admin.lastError'),
        t('admin.costPerCall'),
        t('admin.priorityWeight'),
      ],
      rows,
      t('admin.noUpstreams'),
      'admin-upstreams',
    ),
  );
}
