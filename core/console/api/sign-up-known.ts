// Sign-up with an email that already has an account, while email verification is on: the answer is exactly a
// new sign-up's ("check your inbox", 201) after the same scrypt work, and the mail goes to the owner, telling
// them someone tried (and to log in or reset the password). So sign-up reveals nothing about which emails exist.
// The owner is mailed at most 3 times a day this way, whoever asks: sign-up must not become a way to spam them.
import type { Context } from 'koa';
import { hashPassword } from '../../accounts/passwords.js';
import type { User } from '../../accounts/users.js';
import type { Services } from '../../services.js';
import { sendAccountMail } from './account-mail.js';
import type { PasswordGuard } from './password-guard.js';

const OWNER_MAILS = { perDay: 3, burst: 3 };

export async function signUpOfKnownEmail(
  ctx: Context,
  s: Services,
  guard: PasswordGuard,
  owner: User,
  password: string | null,
): Promise<{ verification_required: true; mail_sent: boolean }> {
  // The hash a new account would cost, thrown away: the time does not tell the two apart.
  if (password !== null) await guard.gated(ctx, () => hashPassword(password));
  let mailSent = true;
  const turn = await s.state.takeToken(
    `console:signup-known:${owner.id}`,
    OWNER_MAILS.perDay / 86_400,
    OWNER_MAILS.burst,
  );
  if (turn.allowed) mailSent = (await sendAccountMail(s, ctx, owner, 'signup_existing')).ok;
  return { verification_required: true, mail_sent: mailSent };
}
