// Log in and register: one card with two modes. Success stores the token (for this browser session, or with
// "remember me" for every tab until it expires: session.ts) and opens the dashboard (new accounts see the quick-start steps there).

import { ApiFailure, post } from '../api.js';
import { fieldValue, h } from '../dom.js';
import { tokens } from '../format.js';
import { t } from '../i18n/index.js';
import { forgetMe } from '../layout.js';
import { link, navigate } from '../router.js';
import { setSession } from '../session.js';
import type { Reply, RequestBody } from '../types.js';
import { busy, field, input, messageSlot, notice } from '../ui.js';
import { renderTwoFactorStep, renderVerificationSent, resendLink } from './account-links.js';
import { trialTokens } from './dashboard.js';

/** A session; with 2FA on, a challenge for the second step; with REQUIRE_EMAIL_VERIFICATION, a link to follow. */
type AuthAnswer = Reply<'login'> | Reply<'register'>;

export function renderAuth(main: HTMLElement, mode: 'login' | 'register', next: string | null): void {
  const msg = messageSlot();
  const submit = h(
    'button',
    { class: 'btn btn-primary btn-block', attrs: { type: 'submit', 'data-testid': 'auth-submit' } },
    mode === 'login' ? t('auth.login') : t('auth.createAccount'),
  );
  const form: HTMLFormElement = h(
    'form',
    {
      class: 'auth-form',
      attrs: { novalidate: true },
      on: {
        submit: (ev) => {
          ev.preventDefault();
          void busy(submit, async () => {
            const email = fieldValue(form, 'email');
            const password = (form.elements.namedItem('password') as HTMLInputElement).value;
            if (!email || !password) return msg.error(new Error(t('auth.fillBoth')));
            try {
              const remember = (form.elements.namedItem('remember') as HTMLInputElement).checked;
              const r = await post<AuthAnswer>(mode, { email, password, remember } satisfies RequestBody<'login'>);
              const target =
                next?.startsWith('/console/') && !next.startsWith('//')
                  ? next.slice('/console/'.length)
                  : mode === 'register'
                    ? '?welcome=1'
                    : '';
              if ('verification_required' in r) return renderVerificationSent(main);
              if ('two_factor_required' in r) {
                return renderTwoFactorStep(
                  main,
                  r.challenge,
                  () => {
                    forgetMe();
                    navigate(target, true);
                  },
                  remember,
                );
              }
              setSession(r.token, r.user, { remember, expiresAt: r.expires_at });
              forgetMe();
              navigate(target, true);
            } catch (err) {
              // Not confirmed yet: the way to a new confirmation mail sits right under the message.
              msg.error(err, err instanceof ApiFailure && err.code === 'EMAIL_NOT_VERIFIED' ? resendLink() : undefined);
            }
          });
        },
      },
    },
    field(
      t('auth.email'),
      input('email', { type: 'email', autocomplete: 'email', required: true, placeholder: 'you@example.com' }),
      undefined,
      true,
    ),
    field(
      t('auth.password'),
      input('password', {
        type: 'password',
        autocomplete: mode === 'login' ? 'current-password' : 'new-password',
        required: true,
        minlength: 8,
      }),
      mode === 'register' ? t('auth.passwordRule') : undefined,
      true,
    ),
    h(
      'label',
      { class: 'check' },
      h('input', { attrs: { type: 'checkbox', name: 'remember', 'data-testid': 'remember-me' } }),
      h('span', null, t('auth.remember')),
      h('span', { class: 'hint' }, t('auth.rememberHint')),
    ),
    msg.el,
    submit,
  );
  // What a new account gets, from the server's offer (nothing shown when there is none).
  const offer = h('div');
  if (mode === 'register')
    void trialTokens().then((n) => {
      if (n > 0)
        offer.append(
          notice('ok', h('span', { attrs: { 'data-testid': 'trial-offer' } }, t('auth.trialOffer', { n: tokens(n) }))),
        );
    });
  main.append(
    h(
      'div',
      { class: 'auth-card card' },
      h('h1', null, mode === 'login' ? t('auth.welcomeBack') : t('auth.createTitle')),
      h('p', { class: 'muted' }, t('auth.tagline')),
      offer,
      form,
      h(
        'p',
        { class: 'auth-switch' },
        mode === 'login' ? t('auth.noAccount') : t('auth.haveAccount'),
        ' ',
        link(mode === 'login' ? 'register' : 'login', mode === 'login' ? t('auth.register') : t('auth.login')),
      ),
      mode === 'login' ? h('p', { class: 'auth-switch' }, link('forgot', t('auth.forgot'))) : null,
      h('p', { class: 'auth-switch' }, link('docs', t('auth.browseDocs'))),
    ),
  );
  (form.elements.namedItem('email') as HTMLInputElement).focus();
}
