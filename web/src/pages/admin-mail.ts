// Admin: the mail outbox. Every mail the server sent or would have sent (without SMTP it only lands here and in
// the log), with its outcome; and a test mail to check the SMTP settings.

import { get, post, query } from '../api.js';
import { clear, h } from '../dom.js';
import { dateTime } from '../format.js';
import { t } from '../i18n/index.js';
import type { Reply, RequestBody } from '../types.js';
import { badge, button, card, field, input, messageSlot, notice, table } from '../ui.js';

type MailRow = Reply<'adminMail'>['items'][number];

const STATUS_KIND = { queued: 'info', sent: 'ok', failed: 'err' } as const;
const statusText = (): Record<MailRow['status'], string> => ({
  queued: t('mail.status.queued'),
  sent: t('mail.status.sent'),
  failed: t('mail.status.failed'),
});

export async function renderAdminMail(main: HTMLElement, before?: number): Promise<void> {
  const page = await get<Reply<'adminMail'>>(`admin/mail${query({ limit: 50, before })}`);
  const msg = messageSlot();
  const to = input('test_to', { type: 'email' });
  const rows = page.items.map((m) => [
    dateTime(m.created_at),
    m.to,
    h(
      'details',
      null,
      h('summary', null, m.subject),
      h('pre', { class: 'code small', attrs: { 'data-testid': `mail-text-${m.id}` } }, m.text),
    ),
    t(`mail.via.${m.transport}`),
    h(
      'span',
      null,
      badge(statusText()[m.status], STATUS_KIND[m.status]),
      m.error ? h('div', { class: 'small muted' }, m.error) : null,
    ),
  ]);
  clear(
    main,
    page.transport === 'outbox' ? notice('info', t('mail.outboxMode')) : notice('ok', t('mail.smtpMode')),
    card(
      t('mail.test'),
      field(t('mail.testTo'), to),
      msg.el,
      button(t('mail.sendTest'), async () => {
        try {
          await post<Reply<'adminMailTest'>>('admin/mail/test', {
            to: to.value,
          } satisfies RequestBody<'adminMailTest'>);
          msg.ok(t('mail.testSent'));
          await renderAdminMail(main);
        } catch (err) {
          msg.error(err);
        }
      }),
    ),
    card(
      t('mail.title'),
      table(
        [t('mail.when'), t('mail.to'), t('mail.subject'), t('mail.transport'), t('mail.status')],
        rows,
        t('mail.empty'),
        'mail-outbox',
      ),
      page.next_before ? button(t('mail.older'), () => renderAdminMail(main, page.next_before ?? undefined)) : null,
    ),
  );
}
