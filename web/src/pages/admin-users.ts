// Admin: find users, disable or enable them, and grant (or deduct) TOKEN with a reason for the ledger.

import { api, get, post, query } from '../api.js';
import { clear, fieldValue, h } from '../dom.js';
import { dateTime, tokens } from '../format.js';
import { t } from '../i18n/index.js';
import { link } from '../router.js';
import { getUser } from '../session.js';
import { stackOnPhone } from '../stack-table.js';
import type { Reply } from '../types.js';
import { badge, busy, button, card, field, input, messageSlot, table } from '../ui.js';

export async function renderAdminUsers(main: HTMLElement): Promise<void> {
  const msg = messageSlot();
  const listSlot = h('div');
  const searchForm: HTMLFormElement = h(
    'form',
    { class: 'inline-form', on: { submit: (ev) => (ev.preventDefault(), void load()) } },
    field(t('admin.search'), input('q', { type: 'search', placeholder: t('admin.searchPlaceholder') })),
    h('button', { class: 'btn', attrs: { type: 'submit' } }, t('admin.find')),
  );
  const load = async (): Promise<void> => {
    try {
      const users = (await get<Reply<'adminUsers'>>(`admin/users${query({ q: fieldValue(searchForm, 'q') })}`)).users;
      const rows = users.map((u) => [
        link(`admin/users/${u.id}`, String(u.id)),
        u.email,
        u.role === 'admin' ? badge(t('role.admin'), 'info') : t('role.user'),
        u.status === 'active' ? badge(t('admin.active'), 'ok') : badge(t('admin.disabled'), 'muted'),
        tokens(u.balance),
        dateTime(u.created_at),
        u.id === getUser()?.id
          ? h('span', { class: 'muted small' }, t('admin.you'))
          : button(
              u.status === 'active' ? t('keys.disable') : t('keys.enable'),
              async () => {
                try {
                  await api<Reply<'adminUpdateUser'>>('PATCH', `admin/users/${u.id}`, {
                    status: u.status === 'active' ? 'disabled' : 'active',
                  });
                  await load();
                } catch (err) {
                  msg.error(err);
                }
              },
              'btn btn-small',
            ),
      ]);
      clear(
        listSlot,
        stackOnPhone(
          table(
            ['ID', t('auth.email'), t('col.role'), t('col.status'), t('col.balance'), t('col.created'), ''],
            rows,
            t('admin.noUsers'),
            'users-table',
          ),
        ),
      );
    } catch (err) {
      msg.error(err);
    }
  };
  const grantBtn = h(
    'button',
    { class: 'btn btn-primary', attrs: { type: 'submit', 'data-testid': 'grant-submit' } },
    t('admin.grant'),
  );
  const grantForm: HTMLFormElement = h(
    'form',
    {
      class: 'form-grid grid-3',
      on: {
        submit: (ev) => {
          ev.preventDefault();
          void busy(grantBtn, async () => {
            try {
              const r = await post<Reply<'adminGrant'>>('admin/grants', {
                email: fieldValue(grantForm, 'email'),
                amount: fieldValue(grantForm, 'amount'),
                reason: fieldValue(grantForm, 'reason'),
              });
              msg.ok(t('admin.granted', { email: r.email, amount: tokens(r.amount), balance: tokens(r.balance) }));
              grantForm.reset();
              await load();
            } catch (err) {
              msg.error(err);
            }
          });
        },
      },
    },
    field(t('auth.email'), input('email', { type: 'email', required: true }), undefined, true),
    field(
      t('admin.amount'),
      input('amount', { type: 'number', step: 'any', required: true }),
      t('admin.amountHint'),
      true,
    ),
    field(t('admin.reason'), input('reason', { required: true, maxlength: 500 }), undefined, true),
    h('div', { class: 'form-actions' }, grantBtn),
  );
  main.append(msg.el, card(t('admin.grantTitle'), grantForm), card(t('admin.users'), searchForm, listSlot));
  await load();
}
