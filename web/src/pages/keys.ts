// API keys: create (name and optional limits), the secret shown exactly once with a copy button, the list
// with disable/enable and delete. The server never returns a secret again; this tab remembers the new one in
// memory so the debugger can use it right away.

import { api, get, post } from '../api.js';
import { clear, fieldValue, h } from '../dom.js';
import { dateTime, tokens } from '../format.js';
import { t } from '../i18n/index.js';
import { link } from '../router.js';
import { forgetSecret, rememberSecret } from '../session.js';
import { stackOnPhone } from '../stack-table.js';
import type { ApiKey, OperationCatalogue, Reply } from '../types.js';
import { badge, busy, button, card, copyButton, field, input, messageSlot, notice, pageHeader, table } from '../ui.js';

function lines(text: string): string[] | undefined {
  const list = text
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);
  return list.length ? list : undefined;
}

function limitsSummary(k: ApiKey): string {
  const l = k.limits;
  const parts: string[] = [];
  if (l.allowed_codes) parts.push(t('keys.onlyCodes', { codes: l.allowed_codes.join(', ') }));
  if (l.ip_allow) parts.push(t('keys.onlyIps', { n: l.ip_allow.length }));
  if (l.rate_limit_per_sec) parts.push(t('keys.rate', { n: l.rate_limit_per_sec }));
  if (l.max_concurrency) parts.push(t('keys.concurrency', { n: l.max_concurrency }));
  if (l.daily_spend_cap !== null) parts.push(t('keys.cap', { n: tokens(l.daily_spend_cap) }));
  if (l.expires_at) parts.push(t('keys.expires', { date: dateTime(l.expires_at) }));
  return parts.join(' · ') || t('keys.noLimits');
}

function statusBadge(k: ApiKey): HTMLElement {
  if (k.status === 'active') return badge(t('keys.active'), 'ok');
  if (k.status === 'expired') return badge(t('keys.expired'), 'warn');
  return badge(t('keys.disabled'), 'muted');
}

export async function renderKeys(main: HTMLElement): Promise<void> {
  const ops = (await get<OperationCatalogue>('operations')).operations;
  const listSlot = h('div');
  const secretSlot = h('div');
  const msg = messageSlot();

  const refresh = async (): Promise<void> => {
    const keys = (await get<Reply<'listKeys'>>('keys')).keys;
    const rows = keys.map((k) => [
      h('strong', null, k.name),
      h('code', null, `${k.prefix}…`),
      statusBadge(k),
      h('span', { class: 'small' }, limitsSummary(k)),
      dateTime(k.created_at),
      dateTime(k.last_used_at),
      h(
        'div',
        { class: 'row-actions' },
        button(
          k.status === 'disabled' ? t('keys.enable') : t('keys.disable'),
          async () => {
            try {
              await api('PATCH', `keys/${k.id}`, { disabled: k.status !== 'disabled' });
              msg.clear();
              await refresh();
            } catch (err) {
              msg.error(err);
            }
          },
          'btn btn-small',
          { 'data-testid': `toggle-key-${k.id}` },
        ),
        button(
          t('keys.rotate'),
          async () => {
            const hours = window.prompt(t('keys.rotatePrompt', { name: k.name }), '24');
            if (hours === null) return;
            try {
              const r = await post<Reply<'rotateKey'>>(`keys/${k.id}/rotate`, { grace_hours: Number(hours) });
              rememberSecret(r.key.id, r.key.name, r.key.prefix, r.secret);
              msg.clear();
              clear(
                secretSlot,
                notice(
                  'ok',
                  h(
                    'p',
                    null,
                    t('keys.rotated', {
                      until: r.old_secret_valid_until ? dateTime(r.old_secret_valid_until) : t('keys.rotatedNow'),
                    }),
                  ),
                  h(
                    'div',
                    { class: 'secret-row' },
                    h('code', { class: 'secret' }, r.secret),
                    copyButton(() => r.secret),
                  ),
                ),
              );
              await refresh();
            } catch (err) {
              msg.error(err);
            }
          },
          'btn btn-small',
          { 'data-testid': `rotate-key-${k.id}` },
        ),
        button(
          t('keys.delete'),
          async () => {
            if (!window.confirm(t('keys.confirmDelete', { name: k.name }))) return;
            try {
              await api('DELETE', `keys/${k.id}`);
              forgetSecret(k.id);
              msg.clear();
              await refresh();
            } catch (err) {
              msg.error(err);
            }
          },
          'btn btn-small btn-danger',
          { 'data-testid': `delete-key-${k.id}` },
        ),
      ),
    ]);
    clear(
      listSlot,
      stackOnPhone(
        table(
          [t('col.name'), t('col.prefix'), t('col.status'), t('col.limits'), t('col.created'), t('col.lastUsed'), ''],
          rows,
          t('keys.none'),
          'keys-table',
        ),
      ),
    );
  };

  const submit = h(
    'button',
    { class: 'btn btn-primary', attrs: { type: 'submit', 'data-testid': 'create-key' } },
    t('keys.create'),
  );
  const codeBoxes = ops.map((o) =>
    h(
      'label',
      { class: 'check' },
      h('input', { attrs: { type: 'checkbox', name: 'code', value: o.code } }),
      h('code', null, o.code),
      ' ',
      o.name,
    ),
  );
  const form: HTMLFormElement = h(
    'form',
    {
      class: 'form-grid',
      on: {
        submit: (ev) => {
          ev.preventDefault();
          void busy(submit, async () => {
            const num = (name: string): number | undefined =>
              fieldValue(form, name) === '' ? undefined : Number(fieldValue(form, name));
            const codes = [...form.querySelectorAll<HTMLInputElement>('input[name=code]:checked')].map((c) => c.value);
            const expires = fieldValue(form, 'expires_at');
            const body = {
              // A key left unnamed is named in the page's language ("密钥「default」已创建" mixed two).
              name: fieldValue(form, 'name') || t('keys.defaultName'),
              allowed_codes: codes.length ? codes : undefined,
              ip_allow: lines(fieldValue(form, 'ip_allow')),
              expires_at: expires ? new Date(`${expires}T23:59:59`).toISOString() : undefined,
              rate_limit_per_sec: num('rate_limit_per_sec'),
              rate_limit_burst: num('rate_limit_burst'),
              max_concurrency: num('max_concurrency'),
              daily_spend_cap: fieldValue(form, 'daily_spend_cap') || undefined,
            };
            try {
              const r = await post<Reply<'createKey'>>('keys', body);
              rememberSecret(r.key.id, r.key.name, r.key.prefix, r.secret);
              form.reset();
              msg.clear();
              clear(
                secretSlot,
                notice(
                  'ok',
                  h('strong', null, t('keys.createdTitle', { name: r.key.name })),
                  h('p', null, t('keys.secretOnce')),
                  h(
                    'div',
                    { class: 'secret-row' },
                    h('code', { class: 'secret', attrs: { 'data-testid': 'new-secret' } }, r.secret),
                    copyButton(() => r.secret),
                  ),
                  h('p', null, link(`debugger?key=${r.key.id}`, t('keys.tryIt'))),
                ),
              );
              await refresh();
            } catch (err) {
              msg.error(err);
            }
          });
        },
      },
    },
    field(t('keys.name'), input('name', { placeholder: t('keys.namePlaceholder'), maxlength: 64 })),
    h(
      'details',
      { class: 'advanced' },
      h('summary', null, t('keys.limits')),
      h(
        'div',
        { class: 'field' },
        h('span', { class: 'field-label' }, t('keys.allowedCodes')),
        h('div', { class: 'checks' }, codeBoxes),
        h('span', { class: 'hint' }, t('keys.allowedCodesHint')),
      ),
      field(
        t('keys.ipAllow'),
        h('textarea', { attrs: { name: 'ip_allow', rows: 2, placeholder: '203.0.113.7, 10.0.0.0/8' } }),
        t('keys.ipAllowHint'),
      ),
      h(
        'div',
        { class: 'grid-3' },
        field(t('keys.ratePerSec'), input('rate_limit_per_sec', { type: 'number', min: 1, step: 1 })),
        field(t('keys.burst'), input('rate_limit_burst', { type: 'number', min: 1, step: 1 })),
        field(t('keys.maxConcurrency'), input('max_concurrency', { type: 'number', min: 1, step: 1 })),
        field(t('keys.dailyCap'), input('daily_spend_cap', { type: 'number', min: 0, step: 'any' }), 'TOKEN'),
        field(t('keys.expiresAt'), input('expires_at', { type: 'date' })),
      ),
    ),
    h('div', { class: 'form-actions' }, submit),
  );
  main.append(
    pageHeader(t('keys.title'), t('keys.subtitle')),
    card(t('keys.new'), form, msg.el),
    secretSlot,
    card(t('keys.yourKeys'), listSlot),
  );
  await refresh();
}
