// Admin overview card: upstream cost and margin of the calls sold over the last 30 days, per operation and the
// configured upstream that served them (GET /console/api/admin/margin; `format=csv` there for a file).

import { get } from '../api.js';
import { h } from '../dom.js';
import { int, tokens } from '../format.js';
import { t } from '../i18n/index.js';
import { card, table } from '../ui.js';

interface MarginRow {
  day: string;
  operation: string;
  upstream: string | null;
  calls: number;
  revenue: number;
  cost: number;
  margin: number;
}

export async function marginCard(): Promise<HTMLElement> {
  const rows = (await get<{ rows: MarginRow[] }>('admin/margin?days=30')).rows;
  // The 30 days summed per operation and upstream.
  const sums = new Map<string, MarginRow>();
  for (const r of rows) {
    const key = `${r.operation}\u0000${r.upstream ?? ''}`;
    const s = sums.get(key);
    if (!s) sums.set(key, { ...r });
    else {
      s.calls += r.calls;
      s.revenue += r.revenue;
      s.cost += r.cost;
      s.margin += r.margin;
    }
  }
  return card(
    t('admin.marginTitle'),
    h('p', { class: 'small muted' }, t('admin.marginHint')),
    table(
      [t('col.operation'), t('admin.upstream'), t('col.calls'), t('col.revenue'), t('admin.cost'), t('admin.margin')],
      [...sums.values()].map((r) => [
        h('code', null, r.operation),
        r.upstream ?? '—',
        int(r.calls),
        tokens(r.revenue),
        tokens(r.cost),
        tokens(r.margin),
      ]),
      t('admin.noCalls'),
      'margin-table',
    ),
  );
}
