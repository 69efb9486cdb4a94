// Admin overview card: upstream cost and margin of the calls sold over the chosen days, per operation and the
// configured upstream that served them, with what the canary probes cost apart (GET /console/api/admin/margin), and
// the same days as a CSV file (`format=csv`).

import { download, get } from '../api.js';
import { clear, h } from '../dom.js';
import { int, tokens } from '../format.js';
import { t } from '../i18n/index.js';
import type { Reply } from '../types.js';
import { button, card, messageSlot, table, tabs } from '../ui.js';

type MarginRow = Reply<'adminMargin'>['rows'][number];

type Days = '7' | '30' | '90';
const DAYS_LABEL = { '7': 'admin.opsWindow168', '30': 'admin.opsWindow720', '90': 'admin.days90' } as const;

/** The days summed per operation and upstream. */
function sumRows(rows: MarginRow[]): MarginRow[] {
  const sums = new Map<string, MarginRow>();
  for (const r of rows) {
    const key = `${r.operation}\u0000${r.upstream ?? ''}`;
    const s = sums.get(key);
    if (!s) sums.set(key, { ...r });
    else {
      s.calls += r.calls;
      s.revenue += r.revenue;
      s.cost += r.cost;
      s.canary_cost += r.canary_cost;
      s.margin += r.margin;
    }
  }
  return [...sums.values()];
}

export async function marginCard(): Promise<HTMLElement> {
  const msg = messageSlot();
  const slot = h('div');
  let days: Days = '30';
  const load = async (d: Days): Promise<void> => {
    days = d;
    try {
      const rows = (await get<Reply<'adminMargin'>>(`admin/margin?days=${d}`)).rows;
      clear(
        slot,
        table(
          [
            t('col.operation'),
            t('admin.upstream'),
            t('col.calls'),
            t('col.revenue'),
            t('admin.cost'),
            t('admin.canaryCost'),
            t('admin.margin'),
          ],
          sumRows(rows).map((r) => [
            h('code', null, r.operation),
            r.upstream ?? '—',
            int(r.calls),
            tokens(r.revenue),
            tokens(r.cost),
            tokens(r.canary_cost),
            tokens(r.margin),
          ]),
          t('admin.noCalls'),
          'margin-table',
        ),
      );
    } catch (err) {
      msg.error(err);
    }
  };
  const csv = button(
    t('admin.marginCsv'),
    () =>
      download(`admin/margin?days=${days}&format=csv`, `margin-${days}d.csv`).catch((err: unknown) => msg.error(err)),
    'btn btn-small btn-ghost',
    { 'data-testid': 'margin-csv' },
  );
  const windows = (Object.keys(DAYS_LABEL) as Days[]).map((d): [Days, string] => [d, t(DAYS_LABEL[d])]);
  const el = card(
    t('admin.marginTitle'),
    h('p', { class: 'small muted' }, t('admin.marginHint')),
    h(
      'div',
      { class: 'row-actions' },
      tabs<Days>(windows, days, (d) => void load(d)),
      csv,
    ),
    msg.el,
    slot,
  );
  await load(days);
  return el;
}
