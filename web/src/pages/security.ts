// Security page: change the password, two-factor authentication (enrol, recovery codes, turn off), the
// console sessions of this account, and the language of account mails.

import { api, get, post } from '../api.js';
import { clear, h } from '../dom.js';
import { dateTime } from '../format.js';
import { t } from '../i18n/index.js';
import { forgetMe } from '../layout.js';
import { qrImage } from '../qr.js';
import { navigate } from '../router.js';
import { clearSession } from '../session.js';
import type { Reply, RequestBody } from '../types.js';
import {
  badge,
  button,
  card,
  copyButton,
  field,
  input,
  messageSlot,
  notice,
  pageHeader,
  select,
  table,
} from '../ui.js';

type Security = Reply<'security'>;

const value = (form: HTMLElement, name: string): string =>
  (form.querySelector(`[name="${name}"]`) as HTMLInputElement).value;

function codesBox(codes: string[]): HTMLElement {
  return h(
    'div',
    { class: 'secret-box', attrs: { 'data-testid': 'recovery-codes' } },
    notice('warn', t('security.codesOnce')),
    h('pre', { class: 'code' }, codes.join('\n')),
    copyButton(() => codes.join('\n')),
  );
}

/**
 * What the authenticator app needs: the QR code to scan (drawn by the server), a link that opens the app on
 * this device (a phone cannot scan its own screen), and the secret to type in, each wrapping on a narrow screen.
 */
function enrolView(r: { secret: string; otpauth_uri: string; qr_svg?: string }): HTMLElement {
  return h(
    'div',
    { class: 'enrol' },
    h('p', null, t('security.scan')),
    r.qr_svg ? h('div', { class: 'qr-box' }, qrImage(r.qr_svg, 'totp-qr', 200)) : null,
    h(
      'p',
      null,
      h('a', { class: 'btn', attrs: { href: r.otpauth_uri, 'data-testid': 'totp-link' } }, t('security.openApp')),
    ),
    h(
      'details',
      { class: 'enrol-manual' },
      h('summary', null, t('security.manual')),
      h('p', { class: 'wrap-any', attrs: { 'data-testid': 'totp-uri' } }, r.otpauth_uri),
      h(
        'p',
        null,
        t('security.secret'),
        ' ',
        h('code', { class: 'wrap-any', attrs: { 'data-testid': 'totp-secret' } }, r.secret),
        ' ',
        copyButton(() => r.secret),
      ),
    ),
  );
}

function passwordCard(): HTMLElement {
  const msg = messageSlot();
  const form = h(
    'div',
    { class: 'form-grid' },
    field(
      t('security.currentPassword'),
      input('current_password', { type: 'password', autocomplete: 'current-password' }),
      undefined,
      true,
    ),
    field(
      t('account.newPassword'),
      input('new_password', { type: 'password', autocomplete: 'new-password', minlength: 8 }),
      t('auth.passwordRule'),
      true,
    ),
  );
  const save = button(
    t('security.changePassword'),
    async () => {
      try {
        const r = await post<Reply<'changePassword'>>('me/password', {
          current_password: value(form, 'current_password'),
          new_password: value(form, 'new_password'),
        } satisfies RequestBody<'changePassword'>);
        msg.ok(t('security.passwordChanged', { n: r.signed_out_sessions }));
        for (const el of form.querySelectorAll('input')) el.value = '';
      } catch (err) {
        msg.error(err);
      }
    },
    'btn btn-primary',
    { 'data-testid': 'change-password' },
  );
  return card(t('security.passwordTitle'), form, msg.el, save);
}

function twoFactorCard(sec: Security, reload: () => void): HTMLElement {
  const msg = messageSlot();
  const body = h('div');
  if (sec.two_factor_required && !sec.two_factor.enabled) body.append(notice('warn', t('err.TWO_FACTOR_REQUIRED')));
  if (!sec.two_factor.enabled) {
    const pw = input('tf_password', { type: 'password', autocomplete: 'current-password' });
    body.append(
      h('p', { class: 'muted' }, t('security.twoFactorIntro')),
      field(t('auth.password'), pw, undefined, true),
      button(
        t('security.setUp'),
        async () => {
          try {
            const r = await post<Reply<'twoFactorSetup'>>('me/2fa/setup', {
              password: pw.value,
            });
            msg.clear();
            const code = input('tf_code', { autocomplete: 'one-time-code', inputmode: 'numeric' });
            clear(
              body,
              enrolView(r),
              field(t('account.code'), code, undefined, true),
              button(
                t('security.confirm'),
                async () => {
                  try {
                    const on = await post<Reply<'twoFactorEnable'>>('me/2fa/enable', { code: code.value });
                    // The wrong code typed before is no longer the state of things.
                    msg.clear();
                    clear(
                      body,
                      notice('ok', t('security.enabled')),
                      codesBox(on.recovery_codes),
                      button(t('security.done'), () => reload()),
                    );
                  } catch (err) {
                    msg.error(err);
                  }
                },
                'btn btn-primary',
                { 'data-testid': 'tf-confirm' },
              ),
            );
          } catch (err) {
            msg.error(err);
          }
        },
        'btn btn-primary',
        { 'data-testid': 'tf-setup' },
      ),
    );
  } else {
    const code = input('tf_code', { autocomplete: 'one-time-code' });
    const pw = input('tf_password', { type: 'password', autocomplete: 'current-password' });
    body.append(
      h(
        'p',
        null,
        badge(t('security.on'), 'ok'),
        ' ',
        t('security.codesLeft', { n: sec.two_factor.recovery_codes_left }),
      ),
      field(t('account.code'), code, t('account.codeHint'), true),
      h(
        'div',
        { class: 'row' },
        button(t('security.newCodes'), async () => {
          try {
            const r = await post<Reply<'twoFactorRecoveryCodes'>>('me/2fa/recovery-codes', { code: code.value });
            msg.clear();
            clear(
              body,
              codesBox(r.recovery_codes),
              button(t('security.done'), () => reload()),
            );
          } catch (err) {
            msg.error(err);
          }
        }),
      ),
      field(t('auth.password'), pw, t('security.offHint')),
      button(
        t('security.turnOff'),
        async () => {
          try {
            await post<Reply<'twoFactorDisable'>>('me/2fa/disable', {
              password: pw.value,
              code: code.value,
            } satisfies RequestBody<'twoFactorDisable'>);
            reload();
          } catch (err) {
            msg.error(err);
          }
        },
        'btn btn-danger',
      ),
    );
  }
  return card(t('security.twoFactorTitle'), body, msg.el);
}

async function sessionsCard(reload: () => void): Promise<HTMLElement> {
  const { items } = await get<Reply<'sessions'>>('me/sessions');
  const msg = messageSlot();
  const rows = items.map((s) => [
    dateTime(s.created_at),
    dateTime(s.expires_at),
    s.current
      ? badge(t('security.thisSession'), 'ok')
      : button(
          t('security.signOut'),
          async () => {
            try {
              await api<Reply<'revokeSession'>>('DELETE', `me/sessions/${s.id}`);
              reload();
            } catch (err) {
              msg.error(err);
            }
          },
          'btn btn-small',
        ),
  ]);
  const others = button(t('security.signOutOthers'), async () => {
    try {
      await post<Reply<'revokeOtherSessions'>>('me/sessions/revoke-others');
      reload();
    } catch (err) {
      msg.error(err);
    }
  });
  // Every session ends, this one too (a shared computer, a lost laptop): every tab of this browser goes to log-in.
  const everywhere = button(
    t('security.signOutEverywhere'),
    async () => {
      try {
        await post<Reply<'revokeAllSessions'>>('me/sessions/revoke-all');
        clearSession();
        forgetMe();
        navigate('login', true);
      } catch (err) {
        msg.error(err);
      }
    },
    'btn btn-danger',
    { 'data-testid': 'sign-out-everywhere' },
  );
  return card(
    t('security.sessionsTitle'),
    table([t('security.signedIn'), t('security.expires'), ''], rows),
    msg.el,
    h('div', { class: 'row-actions' }, others, ' ', everywhere),
  );
}

function languageCard(sec: Security): HTMLElement {
  const msg = messageSlot();
  const choice = select(
    'mail_locale',
    [
      ['zh', t('security.langZh')],
      ['en', t('security.langEn')],
    ],
    sec.locale ?? 'en',
  );
  return card(
    t('security.mailLanguage'),
    field(t('security.mailLanguageHint'), choice),
    msg.el,
    button(t('security.save'), async () => {
      try {
        await api<Reply<'updateSecurity'>>('PATCH', 'me/security', {
          locale: choice.value as RequestBody<'updateSecurity'>['locale'],
        });
        msg.ok(t('security.saved'));
      } catch (err) {
        msg.error(err);
      }
    }),
  );
}

export async function renderSecurity(main: HTMLElement): Promise<void> {
  const reload = (): void => {
    void renderSecurity(main);
  };
  const sec = await get<Reply<'security'>>('me/security');
  const sessions = await sessionsCard(reload);
  clear(
    main,
    pageHeader(t('security.title'), t('security.subtitle')),
    passwordCard(),
    twoFactorCard(sec, reload),
    sessions,
    languageCard(sec),
  );
}
