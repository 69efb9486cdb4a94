// Usage and call log: 30-day chart and per-operation totals, then the call log with filters, paging and a
// CSV export fetched with the Authorization header (the token never goes into a link).

import { download, get, query } from '../api.js';
import { dailyChart } from '../chart.js';
import { type Child, clear, fieldValue, h } from '../dom.js';
import { dateTime, int, ms, tokens } from '../format.js';
import { t, tMaybe } from '../i18n/index.js';
import { loadMe } from '../layout.js';
import { stackOnPhone } from '../stack-table.js';
import type { Call, OperationCatalogue, Reply } from '../types.js';
import { badge, busy, card, errorText, field, input, messageSlot, notice, pageHeader, select, table } from '../ui.js';
import { dailyUsage } from '../usage-data.js';

function callRow(c: Call): Child[] {
  const free = c.free_reason ? (tMaybe(`free.${c.free_reason}`) ?? c.free_reason) : null;
  return [
    h('span', { class: 'nowrap' }, dateTime(c.created_at)),
    h('code', null, c.operation ?? '—'),
    badge(String(c.status), c.status < 300 ? 'ok' : c.status < 500 ? 'warn' : 'err'),
    c.error_code ? h('code', { class: 'small' }, c.error_code) : h('span', { class: 'muted' }, '—'),
    h('span', null, tokens(c.charged), free ? h('span', { class: 'muted small' }, ` (${free})`) : null),
    c.cached ? t('common.yes') : t('common.no'),
    ms(c.duration_ms),
    h('code', { class: 'small' }, c.request_id),
  ];
}

export async function renderUsage(main: HTMLElement): Promise<void> {
  const [series, ops, keys] = await Promise.all([
    dailyUsage(30),
    get<OperationCatalogue>('operations'),
    get<Reply<'listKeys'>>('keys'),
    loadMe(true),
  ]);
  const msg = messageSlot();
  const logSlot = h('div');
  const more = h('div', { class: 'form-actions' });
  let rows: Child[][] = [];

  const filterForm: HTMLFormElement = h(
    'form',
    { class: 'filters', on: { submit: (ev) => (ev.preventDefault(), void load(false), void drawChart()) } },
    field(
      t('usage.operation'),
      select('code', [['', t('usage.all')], ...ops.operations.map((o) => [o.code, o.code] as [string, string])]),
    ),
    field(
      t('usage.key'),
      select('key_id', [
        ['', t('usage.all')],
        ...keys.keys.map((k) => [String(k.id), `${k.name} (${k.prefix}…)`] as [string, string]),
      ]),
    ),
    field(
      t('usage.status'),
      select('status', [
        ['', t('usage.all')],
        ['success', t('usage.success')],
        ['error', t('usage.error')],
        ['402', '402'],
        ['429', '429'],
      ]),
    ),
    field(t('usage.from'), input('from', { type: 'date' })),
    field(t('usage.to'), input('to', { type: 'date' })),
    h(
      'div',
      { class: 'filter-actions' },
      h(
        'button',
        { class: 'btn btn-primary', attrs: { type: 'submit', 'data-testid': 'apply-filters' } },
        t('usage.apply'),
      ),
    ),
  );
  const filters = (): Record<string, string | undefined> => {
    const to = fieldValue(filterForm, 'to');
    // The "to" date is inclusive for people and exclusive for the API: send the next midnight.
    const toNext = to ? new Date(new Date(`${to}T00:00:00`).getTime() + 86_400_000).toISOString() : undefined;
    const from = fieldValue(filterForm, 'from');
    return {
      code: fieldValue(filterForm, 'code') || undefined,
      key_id: fieldValue(filterForm, 'key_id') || undefined,
      status: fieldValue(filterForm, 'status') || undefined,
      from: from ? new Date(`${from}T00:00:00`).toISOString() : undefined,
      to: toNext,
    };
  };
  let nextBefore: number | null = null;
  const load = async (append: boolean): Promise<void> => {
    try {
      const r = await get<Reply<'calls'>>(
        `calls${query({ ...filters(), limit: 50, before: append ? nextBefore : undefined })}`,
      );
      rows = append ? [...rows, ...r.calls.map(callRow)] : r.calls.map(callRow);
      nextBefore = r.next_before;
      clear(
        logSlot,
        // Eight columns: on a phone each call reads as one card instead of a table scrolled sideways.
        stackOnPhone(
          table(
            [
              t('col.time'),
              t('col.operation'),
              t('col.httpStatus'),
              t('col.error'),
              t('col.charged'),
              t('col.cached'),
              t('col.duration'),
              t('col.requestId'),
            ],
            rows,
            t('usage.noCalls'),
            'calls-table',
          ),
        ),
      );
      const moreBtn: HTMLButtonElement = h(
        'button',
        { class: 'btn', attrs: { type: 'button' }, on: { click: () => void busy(moreBtn, () => load(true)) } },
        t('usage.more'),
      );
      clear(more, nextBefore ? moreBtn : null);
      msg.clear();
    } catch (err) {
      msg.error(err);
    }
  };
  const exportBtn: HTMLButtonElement = h(
    'button',
    {
      class: 'btn btn-ghost',
      attrs: { type: 'button', 'data-testid': 'export-csv' },
      on: {
        click: () =>
          void busy(exportBtn, async () => {
            try {
              await download(
                `calls.csv${query(filters())}`,
                `tollgate-calls-${new Date().toISOString().slice(0, 10)}.csv`,
              );
              msg.clear();
            } catch (err) {
              msg.error(err);
            }
          }),
      },
    },
    t('usage.export'),
  );
  const chartSlot = h('div');
  main.append(
    pageHeader(t('usage.title'), t('usage.subtitle')),
    card(t('dash.chartTitle'), chartSlot),
    card(
      t('usage.byOperation'),
      table(
        [t('col.operation'), t('col.calls'), t('col.successes'), t('col.charged')],
        series.usage.by_operation.map((o) => [
          h('code', null, o.operation ?? '—'),
          int(o.calls),
          int(o.successes),
          tokens(o.charged),
        ]),
        t('usage.noCalls'),
      ),
    ),
    card(
      null,
      h('div', { class: 'card-title-row' }, h('h2', { class: 'card-title' }, t('usage.callLog')), exportBtn),
      filterForm,
      msg.el,
      logSlot,
      more,
    ),
  );
  const drawChart = async (): Promise<void> => {
    try {
      // The chart follows the key filter; the other filters narrow the log only.
      const keyId = fieldValue(filterForm, 'key_id');
      const s = keyId ? await dailyUsage(30, keyId) : series;
      clear(
        chartSlot,
        dailyChart({
          days: s.days,
          bars: s.calls,
          line: s.spend,
          barLabel: t('chart.calls'),
          lineLabel: t('chart.spend'),
          emptyText: t('usage.noCalls'),
        }),
      );
    } catch (err) {
      clear(chartSlot, notice('err', errorText(err)));
    }
  };
  await drawChart();
  await load(false);
}
