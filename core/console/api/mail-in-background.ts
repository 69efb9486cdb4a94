// Mails asked for by email address (a password reset link, a new confirmation link): the answer is the same
// whether or not the address names an account, and so is its timing.
import { pruneAccountTokens } from '../../accounts/account-tokens.js';
import { findUserByEmail, type User } from '../../accounts/users.js';
import { throttledLine } from '../../kernel/log-throttle.js';
import type { Services } from '../../services.js';

/** Mails per account: 3 at once, then 3 per hour, so a stranger cannot flood someone's mailbox. */
const PER_ACCOUNT = { rate: 3 / 3600, burst: 3 };

export type MailInBackground = (
  email: string,
  pick: (u: User) => Promise<boolean>,
  send: (u: User) => Promise<unknown>,
) => void;

/**
 * Mails to an address only if it names an active account that `pick` chooses and its per-account budget allows.
 * Runs after the answer is decided and is not awaited, so the response time does not tell whether the account
 * exists; a failure is recorded in the outbox table and the log.
 */
export function mailInBackground(s: Services): MailInBackground {
  const db = s.store.db;
  // Anyone can ask for another account's mails: the line about it is written at most once a minute.
  const budgetSpent = throttledLine(s.logger, 'warn', 'account mail skipped: per-account budget spent');
  return (email, pick, send) => {
    // setImmediate: the answer is written before the look-up starts, so even its microtasks cannot delay it.
    setImmediate(
      () =>
        void (async () => {
          const user = await findUserByEmail(db, email);
          if (user?.status !== 'active' || !(await pick(user))) return;
          if (!(await s.state.takeToken(`console:mail:acct:${user.id}`, PER_ACCOUNT.rate, PER_ACCOUNT.burst)).allowed) {
            budgetSpent({ user_id: user.id });
            return;
          }
          await send(user);
          await pruneAccountTokens(db);
        })().catch((err: unknown) =>
          s.logger.error('account mail task failed', { reason: err instanceof Error ? err.message : String(err) }),
        ),
    );
  };
}
