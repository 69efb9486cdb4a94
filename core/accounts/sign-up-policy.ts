// Who may sign up: the operator's switches (REGISTRATION, REGISTRATION_EMAIL_DOMAINS). Answers a refusal
// code and message, or null when sign-up may go on.
import type { AccountSettings } from '../config/account-env.js';

/** `message` in both languages: the console answers in the caller's. */
export type SignUpRefusal = {
  code: 'REGISTRATION_CLOSED' | 'EMAIL_DOMAIN_NOT_ALLOWED';
  message: { zh: string; en: string };
};

export function signUpRefusal(settings: AccountSettings, email: string): SignUpRefusal | null {
  if (!settings.registrationOpen)
    return {
      code: 'REGISTRATION_CLOSED',
      message: {
        zh: '本服务器已关闭注册，请联系服务方为你开通账户。',
        en: 'Sign-up is closed on this server. Ask the operator for an account.',
      },
    };
  if (settings.registrationDomains.length === 0) return null;
  const domain = email.slice(email.lastIndexOf('@') + 1);
  // Subdomains of an allowed domain count: mail.corp.example.com under corp.example.com.
  if (settings.registrationDomains.some((d) => domain === d || domain.endsWith(`.${d}`))) return null;
  return {
    code: 'EMAIL_DOMAIN_NOT_ALLOWED',
    message: {
      zh: `仅限以下域名的邮箱注册：${settings.registrationDomains.join('、')}。`,
      en: `Sign-up is limited to addresses at ${settings.registrationDomains.join(', ')}.`,
    },
  };
}
