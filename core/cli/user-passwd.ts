// `tollgate user passwd --email E [--password P] [--reset-2fa]`: the operator's way back into an account
// (the first-start admin included). Without --password a strong one is generated and printed once, so no
// password has to pass through shell history. Every console session of the user ends.
import type { Kysely } from 'kysely';
import { generatePassword } from '../accounts/generated-password.js';
import { setPassword } from '../accounts/password-change.js';
import { hashPassword, passwordWeakness } from '../accounts/passwords.js';
import { disableTwoFactor } from '../accounts/totp.js';
import { findUserByEmail } from '../accounts/users.js';
import type { Database } from '../store/schema.js';
import { type ParsedArgs, requireFlag, UsageError } from './args.js';
import type { Print } from './commands.js';

export async function userPasswd(db: Kysely<Database>, args: ParsedArgs, print: Print): Promise<number> {
  const email = requireFlag(args, 'email');
  const user = await findUserByEmail(db, email);
  if (!user) throw new UsageError(`no user with email ${email}`);
  const given = typeof args.flags.password === 'string' ? args.flags.password : null;
  if (args.flags.password === true) throw new UsageError('--password needs a value (or leave it out to generate one)');
  if (given !== null) {
    const weak = passwordWeakness(given);
    if (weak) throw new UsageError(weak);
  }
  const password = given ?? generatePassword();
  const signedOut = await setPassword(db, user.id, await hashPassword(password), null);
  if (args.flags['reset-2fa']) {
    await disableTwoFactor(db, user.id);
    print(`two-factor authentication turned off for ${user.email}`);
  }
  print(`password of ${user.email} changed; ${signedOut} console session(s) signed out`);
  if (given === null) {
    print('the new password is shown once:');
    print(password);
  }
  return 0;
}
