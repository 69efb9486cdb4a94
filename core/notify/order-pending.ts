// order.pending: a new manual order waits for an admin to see the money arrive and confirm it. Every active
// admin gets a mail (in their chosen language, Chinese by default) and the operator's webhook endpoints get an
// `order.pending` event. Runs after the order was saved; a failure here is logged and never fails the order.
import type { Kysely } from 'kysely';
import { parseLocale } from '../accounts/locale.js';
import type { Mailer } from '../accounts/mail/mailer.js';
import { renderMail } from '../accounts/mail/templates.js';
import type { OrderRow } from '../billing/payment-provider.js';
import type { Logger } from '../kernel/logger.js';
import type { Database } from '../store/schema.js';
import type { Webhooks } from './webhooks/webhooks.js';

export interface PendingNoticeDeps {
  db: Kysely<Database>;
  webhooks: Webhooks;
  mailer: Mailer;
  logger: Logger;
  /** PUBLIC_URL: the admin console link in the mail. */
  publicUrl: string;
}

export async function notifyOrderPending(d: PendingNoticeDeps, order: OrderRow): Promise<void> {
  const buyer = await d.db.selectFrom('users').select('email').where('id', '=', order.user_id).executeTakeFirst();
  const amount = (Number(order.amount_minor ?? 0) / 100).toFixed(2);
  const currency = order.currency ?? 'CNY';
  await d.webhooks.emit(
    'order.pending',
    {
      order_id: Number(order.id),
      user_id: Number(order.user_id),
      email: buyer?.email ?? null,
      kind: order.kind,
      item_id: order.item_id,
      amount: Number(amount),
      currency,
      instance: order.instance ?? order.provider,
    },
    null,
  );
  const admins = await d.db
    .selectFrom('users')
    .leftJoin('user_security', 'user_security.user_id', 'users.id')
    .select(['users.email', 'user_security.locale'])
    .where('users.role', '=', 'admin')
    .where('users.status', '=', 'active')
    .execute();
  for (const a of admins) {
    const mail = renderMail('order_pending', parseLocale(a.locale) ?? 'zh', {
      email: a.email,
      link: `${d.publicUrl}/console/admin`,
      order: {
        id: Number(order.id),
        item: order.item_name,
        amount: `${amount} ${currency}`,
        buyer: buyer?.email ?? '-',
      },
    });
    const sent = await d.mailer.send(mail);
    if (!sent.ok) d.logger.warn('order pending mail failed', { order: Number(order.id), to: a.email });
  }
}
