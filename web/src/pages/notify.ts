// Notifications: the low-balance alert line (fired by the charge that crosses it, once, re-armed by a top-up),
// the mail switch, and the user's webhooks (signed JSON or WeCom / DingTalk / Feishu bots).

import { api, get } from '../api.js';
import { h } from '../dom.js';
import { dateTime } from '../format.js';
import { t } from '../i18n/index.js';
import type { Reply } from '../types.js';
import { actionForm, badge, card, field, input, messageSlot, pageHeader } from '../ui.js';
import { webhooksPanel } from './webhooks-panel.js';

export async function renderNotify(main: HTMLElement): Promise<void> {
  const msg = messageSlot();
  const alerts = (await get<Reply<'alerts'>>('alerts')).alerts;
  const state = h('p', { class: 'small' });
  const showState = (a: Reply<'alerts'>['alerts']): void => {
    state.replaceChildren(
      // No line, no alert: "armed" beside an empty field said an alert was waiting that never fires.
      a.balance_threshold === null
        ? badge(t('notify.off'), 'muted')
        : a.armed
          ? badge(t('notify.armed'), 'ok')
          : badge(t('notify.fired'), 'warn'),
      ' ',
      a.last_fired_at ? t('notify.lastFired', { time: dateTime(a.last_fired_at) }) : '',
    );
  };
  showState(alerts);
  const save = h('button', { class: 'btn btn-primary', attrs: { type: 'submit' } }, t('notify.save'));
  const form = actionForm(
    'form-grid grid-3',
    save,
    msg,
    async (form) => {
      const line = (form.elements.namedItem('balance_threshold') as HTMLInputElement).value.trim();
      const pct = (form.elements.namedItem('quota_percent') as HTMLInputElement).value.trim();
      const r = await api<Reply<'setAlerts'>>('PUT', 'alerts', {
        balance_threshold: line === '' ? null : line,
        quota_percent: pct === '' ? null : Number(pct),
        email: (form.elements.namedItem('email') as HTMLInputElement).checked,
      });
      showState(r.alerts);
      msg.ok(t('notify.saved'));
    },
    field(
      t('notify.threshold'),
      input('balance_threshold', { type: 'number', step: 'any', min: 0, value: alerts.balance_threshold ?? '' }),
      t('notify.thresholdHint'),
    ),
    field(
      t('notify.quotaPercent'),
      input('quota_percent', { type: 'number', min: 1, max: 99, value: alerts.quota_percent ?? '' }),
      t('notify.quotaHint'),
    ),
    field(
      t('notify.email'),
      h(
        'label',
        { class: 'check' },
        h('input', { attrs: { type: 'checkbox', name: 'email' }, checked: alerts.email }),
        ` ${t('notify.emailHint')}`,
      ),
    ),
    h('div', { class: 'form-actions' }, save),
  );
  main.append(
    pageHeader(t('notify.title'), t('notify.subtitle')),
    msg.el,
    card(t('notify.alerts'), form, state),
    webhooksPanel('webhooks'),
  );
}
