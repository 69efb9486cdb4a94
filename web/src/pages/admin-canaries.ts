// Admin overview card: every canary subject (an operation, a platform of it, one of its configured upstreams,
// `upstream:<id>`, or one of its plugin's own providers, `provider:<id>`) with its state, since when, the last
// success and the last failure's class and field, then the recent results newest first (GET
// /console/api/admin/canaries and /canaries/history). The failure detail, which the public status page leaves out,
// is shown here.

import { get } from '../api.js';
import { h } from '../dom.js';
import { dateTime } from '../format.js';
import { t } from '../i18n/index.js';
import { stackOnPhone } from '../stack-table.js';
import type { Reply } from '../types.js';
import { badge, card, table } from '../ui.js';

type Subject = Reply<'adminCanaries'>['subjects'][number];

const KIND: Record<Subject['state'], 'ok' | 'warn' | 'err' | 'muted'> = {
  ok: 'ok',
  degraded: 'warn',
  down: 'err',
  unknown: 'muted',
};
const when = (iso: string | null): string => (iso ? dateTime(iso) : '—');
const failure = (cls: string | null, field: string | null): HTMLElement | string =>
  cls ? h('span', null, h('code', null, cls), field ? [' · ', h('code', null, field)] : null) : '—';

export async function canariesCard(): Promise<HTMLElement> {
  const [{ subjects }, { results }] = await Promise.all([
    get<Reply<'adminCanaries'>>('admin/canaries'),
    get<Reply<'adminCanaryHistory'>>('admin/canaries/history?hours=168&limit=20'),
  ]);
  return card(
    t('admin.canaries'),
    h('p', { class: 'small muted' }, t('admin.canariesHint')),
    table(
      [
        t('col.operation'),
        t('admin.subject'),
        t('col.status'),
        t('admin.since'),
        t('admin.lastSuccess'),
        t('admin.lastFailure'),
      ],
      subjects.map((s) => [
        h('code', null, s.operation),
        s.platform ? h('code', null, s.platform) : '—',
        badge(t(`status.${s.state}`), KIND[s.state]),
        when(s.since),
        when(s.last_success_at),
        h('span', { attrs: { title: s.last_detail ?? '' } }, failure(s.last_class, s.last_field)),
      ]),
      t('admin.noCanaries'),
      'canary-status-table',
    ),
    h('h3', null, t('admin.canaryHistory')),
    // One card per result on a phone: as a table, the failure's detail sat past the right edge, one word a line.
    stackOnPhone(
      table(
        [t('col.time'), t('col.operation'), t('admin.subject'), t('admin.source'), t('col.status'), t('admin.detail')],
        results.map((r) => [
          dateTime(r.created_at),
          h('code', null, r.operation),
          r.platform ? h('code', null, r.platform) : '—',
          r.source === 'live' ? t('admin.sourceLive') : t('admin.sourceCanary'),
          r.ok ? badge(t('status.ok'), 'ok') : badge(t('admin.failed'), 'err'),
          r.ok ? '—' : h('span', { class: 'small' }, failure(r.failure_class, r.field), ' ', r.detail),
        ]),
        t('admin.noCanaryResults'),
        'canary-history-table',
      ),
    ),
  );
}
