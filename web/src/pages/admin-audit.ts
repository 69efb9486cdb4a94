// Admin: the audit log (every admin action and key, limit, alert and webhook change: who, when, what, from
// which IP) and the streamed CSV exports of users, orders and the ledger.

import { download, get, query } from '../api.js';
import { clear, fieldValue, h } from '../dom.js';
import { dateTime } from '../format.js';
import { t } from '../i18n/index.js';
import { stackOnPhone } from '../stack-table.js';
import type { Reply } from '../types.js';
import { button, card, field, input, messageSlot, table } from '../ui.js';

export async function renderAdminAudit(main: HTMLElement): Promise<void> {
  const msg = messageSlot();
  const listSlot = h('div');
  let before: number | null = null;
  const filter: HTMLFormElement = h(
    'form',
    { class: 'inline-form', on: { submit: (ev) => (ev.preventDefault(), (before = null), void load()) } },
    field(
      t('audit.userId'),
      input('q', { type: 'search', placeholder: t('admin.searchPlaceholder'), 'data-testid': 'audit-search' }),
    ),
    field(t('audit.action'), input('action', { placeholder: 'key.rotate' })),
    h('button', { class: 'btn', attrs: { type: 'submit' } }, t('admin.find')),
  );
  const load = async (): Promise<void> => {
    try {
      const r = await get<Reply<'adminAudit'>>(
        `admin/audit${query({ q: fieldValue(filter, 'q').trim() || undefined, action: fieldValue(filter, 'action') || undefined, before: before ?? undefined })}`,
      );
      const rows = r.entries.map((e) => [
        dateTime(e.created_at),
        // The role in the page's language ("user" stood in English before the email on a Chinese page).
        e.actor_id === null
          ? t(`role.${e.actor_role}`)
          : `${t(`role.${e.actor_role}`)} ${e.actor_email ?? `#${e.actor_id}`}`,
        h('code', null, e.action),
        `${e.target_type}${e.target_id === null ? '' : ` #${e.target_id}`}`,
        e.subject_user_id === null ? '—' : (e.subject_email ?? `#${e.subject_user_id}`),
        h('code', { class: 'small' }, JSON.stringify(e.detail)),
        e.ip ?? '—',
      ]);
      clear(
        listSlot,
        stackOnPhone(
          table(
            [
              t('col.time'),
              t('audit.actor'),
              t('audit.action'),
              t('audit.target'),
              t('col.user'),
              t('audit.detail'),
              'IP',
            ],
            rows,
            t('audit.none'),
            'audit-table',
          ),
        ),
        r.next_before === null
          ? null
          : button(t('audit.older'), () => ((before = r.next_before), load()), 'btn btn-small'),
      );
    } catch (err) {
      msg.error(err);
    }
  };
  const exportButton = (name: 'users' | 'orders' | 'ledger') =>
    button(
      t(`audit.export.${name}`),
      async () => {
        try {
          await download(`admin/exports/${name}.csv`, `${name}.csv`);
        } catch (err) {
          msg.error(err);
        }
      },
      'btn',
    );
  main.append(
    msg.el,
    card(
      t('audit.exports'),
      h('p', { class: 'small muted' }, t('audit.exportsHint')),
      h('div', { class: 'row-actions' }, exportButton('users'), exportButton('orders'), exportButton('ledger')),
    ),
    card(t('audit.title'), filter, listSlot),
  );
  await load();
}
