// Pages reached without a session: forgot password (asks for a link), reset (from the mailed link), email
// confirmation (from the mailed link), and the second login step when 2FA is on. The token is read from the
// URL once and the URL is cleaned at once, so it does not stay in history or leak through a Referer.

import { post } from '../api.js';
import { type Child, h } from '../dom.js';
import { t } from '../i18n/index.js';
import { link } from '../router.js';
import { setSession } from '../session.js';
import type { Reply, RequestBody } from '../types.js';
import { busy, field, input, messageSlot, notice } from '../ui.js';

type Slot = ReturnType<typeof messageSlot>;

function authCard(title: string, ...children: Array<Node | null>): HTMLElement {
  return h(
    'div',
    { class: 'auth-card card' },
    h('h1', null, title),
    ...children,
    h('p', { class: 'auth-switch' }, link('login', t('auth.login'))),
  );
}

/**
 * One form of these pages: fields, a message slot and a submit button that is busy while `send` runs; an error
 * from `send` (the server's, or a local check) shows in the slot.
 */
function accountForm(
  label: string,
  testId: string,
  send: (value: (name: string) => string, msg: Slot, form: HTMLFormElement) => Promise<void>,
  ...fields: Child[]
): HTMLFormElement {
  const msg = messageSlot();
  const submit = h(
    'button',
    { class: 'btn btn-primary btn-block', attrs: { type: 'submit', 'data-testid': testId } },
    label,
  );
  const value = (name: string): string => (form.elements.namedItem(name) as HTMLInputElement).value;
  const form: HTMLFormElement = h(
    'form',
    {
      class: 'auth-form',
      attrs: { novalidate: true },
      on: {
        submit: (ev) => {
          ev.preventDefault();
          void busy(submit, async () => {
            try {
              await send(value, msg, form);
            } catch (err) {
              msg.error(err);
            }
          });
        },
      },
    },
    ...fields,
    msg.el,
    submit,
  );
  return form;
}

/** The token of a mailed link, taken once; the address bar keeps only the path. */
function takeToken(query: URLSearchParams): string | null {
  const token = query.get('token');
  if (token) history.replaceState(null, '', location.pathname);
  return token;
}

export function renderForgot(main: HTMLElement): void {
  const form = accountForm(
    t('account.sendLink'),
    'forgot-submit',
    async (value, msg) => {
      const email = value('email').trim();
      if (!email) throw new Error(t('auth.fillBoth'));
      await post<Reply<'forgotPassword'>>('password/forgot', { email } satisfies RequestBody<'forgotPassword'>);
      msg.ok(t('account.linkSent'));
    },
    field(t('auth.email'), input('email', { type: 'email', autocomplete: 'email', required: true }), undefined, true),
  );
  main.append(authCard(t('account.forgotTitle'), h('p', { class: 'muted' }, t('account.forgotText')), form));
}

export function renderReset(main: HTMLElement, query: URLSearchParams): void {
  const token = takeToken(query);
  if (!token) {
    main.append(
      authCard(
        t('account.resetTitle'),
        notice('err', t('err.INVALID_TOKEN')),
        h('p', null, link('forgot', t('account.forgotLink'))),
      ),
    );
    return;
  }
  const form = accountForm(
    t('account.setPassword'),
    'reset-submit',
    async (value, _msg, self) => {
      if (value('password') !== value('password2')) throw new Error(t('account.mismatch'));
      await post<Reply<'resetPassword'>>('password/reset', {
        token,
        password: value('password'),
      } satisfies RequestBody<'resetPassword'>);
      self.replaceWith(notice('ok', t('account.resetDone'), ' ', link('login', t('auth.login'))));
    },
    field(
      t('account.newPassword'),
      input('password', { type: 'password', autocomplete: 'new-password', required: true, minlength: 8 }),
      t('auth.passwordRule'),
      true,
    ),
    field(
      t('account.repeatPassword'),
      input('password2', { type: 'password', autocomplete: 'new-password', required: true, minlength: 8 }),
      undefined,
      true,
    ),
  );
  main.append(authCard(t('account.resetTitle'), form));
}

export function renderVerify(main: HTMLElement, query: URLSearchParams): void {
  const token = takeToken(query);
  const slot = h('div', null, t('common.loading'));
  main.append(authCard(t('account.verifyTitle'), slot));
  if (!token) {
    slot.replaceWith(notice('err', t('err.INVALID_TOKEN'), ' ', resendLink()));
    return;
  }
  void post<Reply<'verifyEmail'>>('email/verify', { token } satisfies RequestBody<'verifyEmail'>).then(
    () => slot.replaceWith(notice('ok', t('account.verified'), ' ', link('login', t('auth.login')))),
    (err: unknown) =>
      slot.replaceWith(notice('err', err instanceof Error ? err.message : String(err), ' ', resendLink())),
  );
}

/** Where a customer whose confirmation link is lost, used or expired gets a new one. */
export function resendLink(): HTMLElement {
  return link('verify-resend', t('account.resendLink'));
}

/** Ask for a new confirmation mail (the same answer whether or not the email has an account). */
export function renderResendVerification(main: HTMLElement): void {
  const form = accountForm(
    t('account.resendSubmit'),
    'resend-submit',
    async (value, msg) => {
      const email = value('email').trim();
      if (!email) throw new Error(t('auth.fillBoth'));
      await post<Reply<'resendVerification'>>('email/verify/resend', {
        email,
      } satisfies RequestBody<'resendVerification'>);
      msg.ok(t('account.resendSent'));
    },
    field(t('auth.email'), input('email', { type: 'email', autocomplete: 'email', required: true }), undefined, true),
  );
  main.append(authCard(t('account.verifyTitle'), h('p', { class: 'muted' }, t('account.resendText')), form));
}

/** Second login step: the challenge from /login plus a code from the app or a recovery code. */
export function renderTwoFactorStep(main: HTMLElement, challenge: string, done: () => void, remember = false): void {
  const form = accountForm(
    t('auth.login'),
    'twofactor-submit',
    async (value) => {
      const r = await post<Reply<'login2fa'>>('login/2fa', {
        challenge,
        code: value('code').trim(),
        remember,
      } satisfies RequestBody<'login2fa'>);
      setSession(r.token, r.user, { remember, expiresAt: r.expires_at });
      done();
    },
    field(
      t('account.code'),
      input('code', { autocomplete: 'one-time-code', inputmode: 'numeric', required: true }),
      t('account.codeHint'),
      true,
    ),
  );
  main.replaceChildren(authCard(t('account.twoFactorTitle'), form));
  (form.elements.namedItem('code') as HTMLInputElement).focus();
}

export function renderVerificationSent(main: HTMLElement): void {
  main.replaceChildren(
    authCard(t('account.verifyTitle'), notice('ok', t('account.verifySent')), h('p', { class: 'muted' }, resendLink())),
  );
}
