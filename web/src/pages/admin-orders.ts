// Admin: orders (pending first, with a count badge), payment instances with their notify URL and last
// notification, and the payment log. Confirming credits the buyer exactly once ("补单" for an online order
// whose notification never came); "query" asks the provider now; refunds go to the provider where it can.

import { get, post, query } from '../api.js';
import { clear, fieldValue, h } from '../dom.js';
import { dateTime, tokens } from '../format.js';
import { getLang, t, tMaybe } from '../i18n/index.js';
import { refreshPendingBadges } from '../pending-badge.js';
import { stackOnPhone } from '../stack-table.js';
import type { Reply } from '../types.js';
import { badge, button, card, field, input, messageSlot, table, tabs } from '../ui.js';
import { payStatus } from './pay-order.js';
import { money, type PayOrder } from './pay-types.js';

/** How the order is paid, in words: manual payment by name (with its instance when that is not `manual`), an
 * online one by its instance and channel. */
function methodText(o: PayOrder): string {
  if (o.provider === 'manual')
    return o.instance === 'manual' ? t('payKind.manual') : `${t('payKind.manual')} (${o.instance})`;
  if (!o.method || o.method === 'manual') return o.instance;
  return `${o.instance} · ${tMaybe(`channel.${o.method}`) ?? o.method}`;
}

type Filter = 'pending' | 'paid' | 'amount_mismatch' | 'expired' | 'cancelled' | 'refunded' | 'all';

export async function renderAdminOrders(main: HTMLElement): Promise<void> {
  const msg = messageSlot();
  const badges = h('div', { class: 'row-actions' });
  const instancesSlot = h('div');
  const listSlot = h('div');
  const logSlot = h('div');
  let filter: Filter = 'pending';
  let logOrder: number | undefined;

  const loadSummary = async (): Promise<void> => {
    const s = await get<Reply<'adminPaymentSummary'>>('admin/payments/summary');
    clear(
      badges,
      h(
        'span',
        { attrs: { 'data-testid': 'pending-badge' } },
        badge(t('admin.pendingBadge', { n: s.pending }), s.pending > 0 ? 'warn' : 'muted'),
      ),
      s.amount_mismatch > 0 ? badge(t('admin.mismatchBadge', { n: s.amount_mismatch }), 'err') : null,
    );
    clear(
      instancesSlot,
      table(
        [t('col.name'), t('col.type'), t('admin.notifyUrl'), t('admin.lastNotify')],
        s.instances.map((i) => [
          h('strong', null, `${i.label[getLang()]} (${i.id})`),
          i.kind,
          i.notify_url ? h('code', { class: 'small' }, i.notify_url) : '—',
          i.last_notification_at
            ? h(
                'span',
                null,
                dateTime(i.last_notification_at),
                ' ',
                badge(i.last_notification_ok ? 'OK' : '✗', i.last_notification_ok ? 'ok' : 'err'),
              )
            : '—',
        ]),
      ),
    );
  };

  const loadLog = async (): Promise<void> => {
    const entries = (await get<Reply<'adminPaymentLog'>>(`admin/payments/log${query({ order: logOrder, limit: 50 })}`))
      .entries;
    clear(
      logSlot,
      table(
        [t('col.time'), t('col.order'), t('col.method'), t('col.source'), t('col.verified'), t('col.outcome')],
        entries.map((e) => [
          dateTime(e.created_at),
          e.order_id === null ? '—' : `#${e.order_id}`,
          e.instance,
          e.source,
          badge(e.verified ? '✓' : '✗', e.verified ? 'ok' : 'err'),
          h('span', { class: 'small' }, [e.state, e.outcome].filter(Boolean).join(' · ')),
        ]),
        t('admin.noLog'),
        'payment-log-table',
      ),
    );
  };

  const act = async (fn: () => Promise<void>): Promise<void> => {
    try {
      await fn();
      await Promise.all([load(), loadSummary(), loadLog(), refreshPendingBadges()]);
    } catch (err) {
      msg.error(err);
    }
  };

  const refund = (o: PayOrder): Promise<void> =>
    act(async () => {
      const max = (o.pay_amount ?? o.amount) - ((o.pay_amount ?? o.amount) * o.refunded_tokens) / (o.tokens || 1);
      const amount = window.prompt(t('admin.refundAmount', { currency: o.currency, max: max.toFixed(2) }), '');
      if (amount === null) return;
      const reason = window.prompt(t('admin.refundReason'), '');
      if (!reason) return;
      const r = await post<Reply<'adminRefundOrder'>>(`admin/orders/${o.id}/refund`, {
        reason,
        ...(amount.trim() ? { amount: amount.trim() } : {}),
      });
      msg.ok(t('admin.refundDone', { id: o.id, amount: r.amount.toFixed(2), tokens: tokens(r.tokens) }));
    });

  const actions = (o: PayOrder): HTMLElement =>
    h(
      'div',
      { class: 'row-actions' },
      o.status === 'pending' || o.status === 'expired'
        ? button(
            t('admin.confirm'),
            () =>
              act(async () => {
                if (!window.confirm(t('admin.confirmAsk', { id: o.id, amount: money(o) }))) return;
                await post<Reply<'adminConfirmOrder'>>(`admin/orders/${o.id}/confirm`);
                msg.ok(t('admin.confirmed', { id: o.id }));
              }),
            'btn btn-small btn-primary',
            { 'data-testid': `confirm-order-${o.id}` },
          )
        : null,
      (o.status === 'pending' || o.status === 'expired') && o.provider !== 'manual'
        ? button(
            t('admin.sync'),
            () =>
              act(async () => {
                const r = await post<Reply<'adminSyncOrder'>>(`admin/orders/${o.id}/sync`);
                msg.ok(t('admin.synced', { id: o.id, state: r.state }));
              }),
            'btn btn-small',
            { 'data-testid': `sync-order-${o.id}` },
          )
        : null,
      o.status === 'pending'
        ? button(
            t('admin.cancelOrder'),
            () =>
              act(async () => {
                if (!window.confirm(t('admin.cancelAsk', { id: o.id }))) return;
                await post<Reply<'adminCancelOrder'>>(`admin/orders/${o.id}/cancel`);
                msg.ok(t('admin.cancelDone', { id: o.id }));
              }),
            'btn btn-small btn-danger',
            { 'data-testid': `cancel-order-${o.id}` },
          )
        : null,
      o.status === 'paid'
        ? button(t('admin.refund'), () => refund(o), 'btn btn-small btn-danger', {
            'data-testid': `refund-order-${o.id}`,
          })
        : null,
      button(
        t('admin.paymentLog'),
        async () => {
          logOrder = o.id;
          await loadLog().catch((err: unknown) => msg.error(err));
          logSlot.scrollIntoView({ block: 'nearest' });
        },
        'btn btn-small btn-ghost',
      ),
    );

  const load = async (): Promise<void> => {
    try {
      const q = fieldValue(searchForm, 'q').trim() || undefined;
      const orders = (
        await get<Reply<'adminOrders'>>(`admin/orders${query({ status: filter === 'all' ? undefined : filter, q })}`)
      ).orders;
      const rows = orders.map((o) => [
        `#${o.id}`,
        o.user_email ?? `#${o.user_id}`,
        o.item_name,
        money(o),
        methodText(o),
        payStatus(o),
        dateTime(o.created_at),
        dateTime(o.paid_at),
        actions(o),
      ]);
      clear(
        listSlot,
        stackOnPhone(
          table(
            [
              t('col.order'),
              t('col.user'),
              t('col.item'),
              t('col.amount'),
              t('col.method'),
              t('col.status'),
              t('col.created'),
              t('col.paid'),
              t('col.actions'),
            ],
            rows,
            t('billing.noOrders'),
            'admin-orders-table',
          ),
        ),
      );
    } catch (err) {
      msg.error(err);
    }
  };
  // Search within the chosen tab: an order number (#123), part of an email, or an API key prefix (sk_...).
  const searchForm: HTMLFormElement = h(
    'form',
    { class: 'inline-form', on: { submit: (ev) => (ev.preventDefault(), void load()) } },
    field(
      t('admin.searchOrders'),
      input('q', { type: 'search', placeholder: t('admin.searchOrdersPlaceholder'), 'data-testid': 'orders-search' }),
    ),
    h('button', { class: 'btn', attrs: { type: 'submit', 'data-testid': 'orders-search-submit' } }, t('admin.find')),
  );
  const bar = tabs<Filter>(
    [
      ['pending', t('order.pending')],
      ['paid', t('order.paid')],
      ['amount_mismatch', t('order.amount_mismatch')],
      ['expired', t('order.expired')],
      ['cancelled', t('order.cancelled')],
      ['refunded', t('order.refunded')],
      ['all', t('usage.all')],
    ],
    filter,
    (f) => {
      filter = f;
      void load();
    },
  );
  main.append(
    card(h('span', null, t('admin.orders'), ' ', badges), searchForm, bar, msg.el, listSlot),
    card(t('admin.instances'), instancesSlot),
    card(
      h(
        'span',
        null,
        t('admin.paymentLog'),
        ' ',
        button(
          t('usage.all'),
          async () => {
            logOrder = undefined;
            await loadLog().catch((err: unknown) => msg.error(err));
          },
          'btn btn-small btn-ghost',
        ),
      ),
      logSlot,
    ),
  );
  await Promise.all([load(), loadSummary(), loadLog()]);
}
