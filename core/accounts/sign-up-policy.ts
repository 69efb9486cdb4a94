// Who may sign up: the operator's switches (REGISTRATION, REGISTRATION_EMAIL_DOMAINS). Answers a refusal
// code and message, or null when sign-up may go on.
import type { AccountSettings } from '../config/account-env.js';

export type SignUpRefusal = { code: 'REGISTRATION_CLOSED' | 'EMAIL_DOMAIN_NOT_ALLOWED'; message: string };

export function signUpRefusal(settings: AccountSettings, email: string): SignUpRefusal | null {
  if (!settings.registrationOpen)
    return {
      code: 'REGISTRATION_CLOSED',
      message: 'Sign-up is closed on this server. Ask the operator for an account.',
    };
  if (settings.registrationDomains.length === 0) return null;
  const domain = email.slice(email.lastIndexOf('@') + 1);
  // Subdomains of an allowed domain count: mail.corp.example.com under corp.example.com.
  if (settings.registrationDomains.some((d) => domain === d || domain.endsWith(`.${d}`))) return null;
  return {
    code: 'EMAIL_DOMAIN_NOT_ALLOWED',
    message: `Sign-up is limited to addresses at ${settings.registrationDomains.join(', ')}.`,
  };
}
