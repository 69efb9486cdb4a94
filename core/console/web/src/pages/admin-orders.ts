// Admin: orders, pending first by default; confirming one marks it paid and credits the buyer exactly once.
import { h, clear } from '../dom.js';
import { t } from '../i18n/index.js';
import { get, post, query } from '../api.js';
import { button, card, messageSlot, table, tabs } from '../ui.js';
import { dateTime, tokens } from '../format.js';
import { orderStatus } from './billing.js';
import type { Order } from '../types.js';

type Filter = 'pending' | 'paid' | 'cancelled' | 'all';

export async function renderAdminOrders(main: HTMLElement): Promise<void> {
  const msg = messageSlot();
  const listSlot = h('div');
  let filter: Filter = 'pending';
  const load = async (): Promise<void> => {
    try {
      const orders = (await get<{ orders: Order[] }>(`admin/orders${query({ status: filter === 'all' ? undefined : filter })}`)).orders;
      const rows = orders.map((o) => [
        `#${o.id}`,
        String(o.user_id),
        o.item_name,
        `¥${tokens(o.amount)}`,
        orderStatus(o),
        dateTime(o.created_at),
        o.status === 'pending'
          ? button(t('admin.confirm'), async () => {
              if (!window.confirm(t('admin.confirmAsk', { id: o.id, amount: tokens(o.amount) }))) return;
              try {
                await post(`admin/orders/${o.id}/confirm`);
                msg.ok(t('admin.confirmed', { id: o.id }));
                await load();
              } catch (err) {
                msg.error(err);
              }
            }, 'btn btn-small btn-primary', { 'data-testid': `confirm-order-${o.id}` })
          : dateTime(o.paid_at),
      ]);
      clear(listSlot, table([t('col.order'), t('col.user'), t('col.item'), t('col.amount'), t('col.status'), t('col.created'), ''], rows, t('billing.noOrders'), 'admin-orders-table'));
    } catch (err) {
      msg.error(err);
    }
  };
  const bar = tabs<Filter>(
    [
      ['pending', t('order.pending')],
      ['paid', t('order.paid')],
      ['cancelled', t('order.cancelled')],
      ['all', t('usage.all')],
    ],
    filter,
    (f) => {
      filter = f;
      void load();
    },
  );
  main.append(card(t('admin.orders'), bar, msg.el, listSlot));
  await load();
}
