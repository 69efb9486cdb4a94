// Webhook endpoints with their delivery log and replay, for a user (/console/api/webhooks) or the operator
// (/console/api/admin/webhooks). The signing secret is shown once, right after creation.

import { api, get, post } from '../api.js';
import { clear, fieldValue, h } from '../dom.js';
import { dateTime } from '../format.js';
import type { MessageKey } from '../i18n/index.js';
import { t } from '../i18n/index.js';
import type { Reply } from '../types.js';
import {
  actionForm,
  badge,
  button,
  card,
  copyButton,
  field,
  input,
  messageSlot,
  notice,
  select,
  table,
} from '../ui.js';

type Endpoint = Reply<'myWebhooks'>['webhooks'][number];

const EVENTS = ['balance.low', 'order.paid', 'plan.expiring', 'key.expiring'];
/**
 * The operator's endpoints may also subscribe to the two events sent only to them: a manual order waiting for a
 * confirmation, and a configured upstream taken out of rotation. Without them here an operator could not ask for
 * either from the console, though the server accepts both.
 */
const OPERATOR_EVENTS = [...EVENTS, 'order.pending', 'upstream.disabled'];
const STATUS_BADGE = { delivered: 'ok', pending: 'warn', failed: 'err' } as const;

export function webhooksPanel(base: 'webhooks' | 'admin/webhooks'): HTMLElement {
  const msg = messageSlot();
  const secretSlot = h('div');
  const listSlot = h('div');
  const logSlot = h('div');

  const showLog = async (e: Endpoint): Promise<void> => {
    try {
      const rows = (await get<Reply<'myWebhookDeliveries'>>(`${base}/${e.id}/deliveries`)).deliveries;
      clear(
        logSlot,
        card(
          t('notify.deliveriesOf', { url: e.url }),
          table(
            [t('col.time'), t('notify.event'), t('col.status'), t('notify.attempts'), t('notify.lastResult'), ''],
            rows.map((d) => [
              dateTime(d.created_at),
              d.event,
              badge(t(`notify.status.${d.status}` as MessageKey), STATUS_BADGE[d.status]),
              String(d.attempts),
              d.last_error ?? (d.last_status === null ? '—' : String(d.last_status)),
              button(
                t('notify.replay'),
                async () => {
                  try {
                    await post(`${base}/${e.id}/deliveries/${d.id}/replay`);
                    msg.ok(t('notify.replayed'));
                    await showLog(e);
                  } catch (err) {
                    msg.error(err);
                  }
                },
                'btn btn-small',
              ),
            ]),
            t('notify.noDeliveries'),
          ),
        ),
      );
    } catch (err) {
      msg.error(err);
    }
  };

  const load = async (): Promise<void> => {
    try {
      const hooks = (await get<Reply<'myWebhooks'>>(base)).webhooks;
      clear(
        listSlot,
        table(
          [t('notify.url'), t('notify.kind'), t('notify.events'), t('col.status'), t('col.created'), ''],
          hooks.map((e) => [
            h('code', { class: 'small' }, e.url),
            t(`notify.kind.${e.kind}` as MessageKey),
            e.events.join(', '),
            e.status === 'active' ? badge(t('admin.active'), 'ok') : badge(t('admin.disabled'), 'muted'),
            dateTime(e.created_at),
            h(
              'span',
              { class: 'row-actions' },
              button(t('notify.log'), () => showLog(e), 'btn btn-small'),
              button(
                e.status === 'active' ? t('keys.disable') : t('keys.enable'),
                async () => {
                  try {
                    await api('PATCH', `${base}/${e.id}`, { status: e.status === 'active' ? 'disabled' : 'active' });
                    await load();
                  } catch (err) {
                    msg.error(err);
                  }
                },
                'btn btn-small',
              ),
              button(
                t('keys.delete'),
                async () => {
                  if (!confirm(t('notify.confirmDelete'))) return;
                  try {
                    await api('DELETE', `${base}/${e.id}`);
                    clear(logSlot);
                    await load();
                  } catch (err) {
                    msg.error(err);
                  }
                },
                'btn btn-small btn-danger',
              ),
            ),
          ]),
          t('notify.noWebhooks'),
        ),
      );
    } catch (err) {
      msg.error(err);
    }
  };

  const submit = h('button', { class: 'btn btn-primary', attrs: { type: 'submit' } }, t('notify.add'));
  const eventBoxes = (base === 'admin/webhooks' ? OPERATOR_EVENTS : EVENTS).map((ev) =>
    h(
      'label',
      { class: 'check' },
      h('input', { attrs: { type: 'checkbox', name: 'events', value: ev }, checked: ev === 'balance.low' }),
      ` ${ev}`,
    ),
  );
  const form = actionForm(
    'form-grid grid-3',
    submit,
    msg,
    async (form) => {
      const events = [...form.querySelectorAll<HTMLInputElement>('input[name=events]:checked')].map((c) => c.value);
      const botSecret = fieldValue(form, 'bot_secret');
      const r = await post<Reply<'myCreateWebhook'>>(base, {
        url: fieldValue(form, 'url'),
        kind: fieldValue(form, 'kind'),
        events,
        ...(botSecret ? { bot_secret: botSecret } : {}),
      });
      clear(
        secretSlot,
        notice(
          'ok',
          h('p', null, t('notify.secretOnce')),
          h(
            'div',
            { class: 'secret-row' },
            h('code', { class: 'secret' }, r.secret),
            copyButton(() => r.secret),
          ),
        ),
      );
      form.reset();
      await load();
    },
    field(
      t('notify.url'),
      input('url', { type: 'url', required: true, placeholder: 'https://' }),
      t('notify.urlHint'),
      true,
    ),
    field(
      t('notify.kind'),
      select(
        'kind',
        ['standard', 'wecom', 'dingtalk', 'feishu'].map((k) => [k, t(`notify.kind.${k}` as MessageKey)]),
        'standard',
      ),
    ),
    field(t('notify.botSecret'), input('bot_secret', { maxlength: 200 }), t('notify.botSecretHint')),
    field(t('notify.events'), h('div', { class: 'checks' }, eventBoxes)),
    h('div', { class: 'form-actions' }, submit),
  );
  void load();
  return h(
    'div',
    null,
    msg.el,
    card(base === 'webhooks' ? t('notify.webhooks') : t('notify.operatorWebhooks'), form, secretSlot, listSlot),
    logSlot,
  );
}
