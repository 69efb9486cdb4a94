// Admin: one user in depth (keys, recent calls, ledger, orders, plans, audit) with refund and debit forms. A
// debit never takes more than the available balance; the server refuses it with a clear message.

import { get, post } from '../api.js';
import { fieldValue, h } from '../dom.js';
import { dateTime, tokens } from '../format.js';
import type { MessageKey } from '../i18n/index.js';
import { t } from '../i18n/index.js';
import { link, rerender } from '../router.js';
import type { Reply } from '../types.js';
import { actionForm, badge, card, field, input, messageSlot, pageHeader, select, stat, table } from '../ui.js';

export async function renderAdminUser(main: HTMLElement, id: string): Promise<void> {
  const msg = messageSlot();
  const o = await get<Reply<'adminUserOverview'>>(`admin/users/${encodeURIComponent(id)}/overview`);
  const submit = h('button', { class: 'btn btn-primary', attrs: { type: 'submit' } }, t('adminUser.apply'));
  const form = actionForm(
    'form-grid grid-3',
    submit,
    msg,
    async (form) => {
      const r = await post<Reply<'adminAdjust'>>(`admin/users/${o.user.id}/adjustments`, {
        kind: fieldValue(form, 'kind'),
        amount: fieldValue(form, 'amount'),
        reason: fieldValue(form, 'reason'),
      });
      msg.ok(t('adminUser.adjusted', { amount: tokens(r.amount), balance: tokens(r.balance) }));
      rerender();
    },
    field(
      t('adminUser.kind'),
      select(
        'kind',
        [
          ['refund', t('adminUser.refund')],
          ['debit', t('adminUser.debit')],
        ],
        'refund',
      ),
    ),
    field(t('admin.amount'), input('amount', { type: 'number', step: 'any', min: 0, required: true }), undefined, true),
    field(t('admin.reason'), input('reason', { required: true, maxlength: 500 }), undefined, true),
    h('div', { class: 'form-actions' }, submit),
  );
  main.append(
    pageHeader(
      o.user.email,
      t('adminUser.subtitle', { id: String(o.user.id) }),
      link('admin/users', t('adminUser.back')),
    ),
    msg.el,
    h(
      'div',
      { class: 'stats' },
      stat(t('col.balance'), tokens(o.user.balance), 'TOKEN'),
      stat(t('adminUser.available'), tokens(o.user.available), 'TOKEN'),
      stat(
        t('col.status'),
        o.user.status === 'active' ? badge(t('admin.active'), 'ok') : badge(t('admin.disabled'), 'muted'),
      ),
    ),
    card(t('adminUser.adjust'), form),
    card(
      t('nav.keys'),
      table(
        [t('col.name'), t('col.prefix'), t('col.status'), t('col.lastUsed')],
        o.keys.map((k) => [k.name, h('code', null, k.prefix), k.status, dateTime(k.last_used_at)]),
        t('common.empty'),
      ),
    ),
    card(
      t('adminUser.calls'),
      table(
        [t('col.time'), t('col.operation'), t('adminUser.key'), t('col.status'), t('col.charged')],
        o.calls.map((c) => [
          dateTime(c.created_at),
          c.operation ?? '—',
          c.key_id === null ? '—' : String(c.key_id),
          String(c.status),
          tokens(c.charged),
        ]),
        t('common.empty'),
      ),
    ),
    card(
      t('adminUser.ledger'),
      table(
        [t('col.time'), t('col.kind'), t('col.amount'), t('col.balance'), t('admin.reason')],
        o.ledger.map((l) => [
          dateTime(l.created_at),
          t(`ledger.${l.kind}` as MessageKey),
          tokens(l.amount),
          tokens(l.balance_after),
          l.note ?? '',
        ]),
        t('common.empty'),
      ),
    ),
    card(
      t('admin.orders'),
      table(
        [t('col.order'), t('col.item'), t('col.amount'), t('col.status'), t('col.created')],
        o.orders.map((r) => [
          String(r.id),
          r.item_name ?? '—',
          tokens(r.amount ?? 0),
          r.status,
          dateTime(r.created_at),
        ]),
        t('common.empty'),
      ),
    ),
    card(
      t('adminUser.plans'),
      table(
        [t('col.item'), t('adminUser.starts'), t('adminUser.ends')],
        o.subscriptions.map((s) => [s.plan_id, dateTime(s.starts_at), dateTime(s.ends_at)]),
        t('common.empty'),
      ),
    ),
    card(
      t('audit.title'),
      table(
        [t('col.time'), t('audit.action'), t('audit.actor'), 'IP'],
        o.audit.map((a) => [
          dateTime(a.created_at),
          h('code', null, a.action),
          a.actor_id === null ? '—' : (a.actor_email ?? `#${a.actor_id}`),
          a.ip ?? '—',
        ]),
        t('audit.none'),
      ),
    ),
  );
}
