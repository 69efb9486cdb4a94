// The CLI commands other than serve: they need only the database.
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { createApiKey } from '../accounts/api-keys.js';
import { passwordWeakness } from '../accounts/passwords.js';
import { createUser, findUserByEmail, isValidEmail } from '../accounts/users.js';
import { postEntry } from '../billing/ledger.js';
import { reconcile } from '../billing/reconcile.js';
import { toMicro, toToken } from '../kernel/money.js';
import type { Database } from '../store/schema.js';
import { type ParsedArgs, requireFlag, UsageError } from './args.js';

export type Print = (line: string) => void;

export async function userAdd(db: Kysely<Database>, args: ParsedArgs, print: Print): Promise<number> {
  const email = requireFlag(args, 'email');
  const password = requireFlag(args, 'password');
  if (!isValidEmail(email)) throw new UsageError(`not a valid email: ${email}`);
  const weak = passwordWeakness(password);
  if (weak) throw new UsageError(weak);
  if (await findUserByEmail(db, email)) throw new UsageError(`a user with email ${email} exists already`);
  const user = await createUser(db, email, password, args.flags.admin ? 'admin' : 'user');
  print(`created ${user.role} ${user.email} (id ${user.id})`);
  return 0;
}

export async function credit(db: Kysely<Database>, args: ParsedArgs, print: Print): Promise<number> {
  const user = await findUserByEmail(db, requireFlag(args, 'email'));
  if (!user) throw new UsageError('no such user');
  let amount: number;
  try {
    amount = toMicro(requireFlag(args, 'amount'));
  } catch {
    throw new UsageError('--amount must be a TOKEN amount with at most 6 decimals, e.g. 12.5 or -3');
  }
  if (amount === 0) throw new UsageError('--amount must not be 0');
  const reason = typeof args.flags.reason === 'string' ? args.flags.reason : 'cli credit';
  const balance = await postEntry(db, {
    userId: user.id,
    amount,
    kind: amount > 0 ? 'grant' : 'adjustment',
    ref: `cli:${Date.now()}:${randomBytes(6).toString('hex')}`,
    note: reason,
  });
  print(`${user.email}: ${amount > 0 ? '+' : ''}${toToken(amount)} TOKEN, balance ${toToken(balance)} TOKEN`);
  return 0;
}

export async function keyCreate(db: Kysely<Database>, args: ParsedArgs, print: Print): Promise<number> {
  const user = await findUserByEmail(db, requireFlag(args, 'email'));
  if (!user) throw new UsageError('no such user');
  const name = typeof args.flags.name === 'string' ? args.flags.name : 'cli';
  const { key, secret } = await createApiKey(db, user.id, name);
  print(`created key ${key.prefix}… "${key.name}" for ${user.email}; the secret is shown once:`);
  print(secret);
  return 0;
}

export async function keyRevoke(db: Kysely<Database>, args: ParsedArgs, print: Print): Promise<number> {
  const prefix = requireFlag(args, 'prefix');
  const res = await db
    .updateTable('api_keys')
    .set({ status: 'disabled' })
    .where('prefix', '=', prefix)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  const n = Number(res.numUpdatedRows);
  if (n === 0) throw new UsageError(`no key with prefix ${prefix}`);
  print(`revoked ${n} key(s) with prefix ${prefix}`);
  return 0;
}

export async function reconcileCommand(db: Kysely<Database>, print: Print): Promise<number> {
  const report = await reconcile(db);
  for (const m of report.mismatches) {
    print(
      `MISMATCH ${m.email} (id ${m.userId}): balance ${toToken(m.balance)} vs ledger ${toToken(m.ledgerSum)}; held ${toToken(m.held)} vs holds ${toToken(m.holdsSum)}`,
    );
  }
  print(
    report.ok
      ? `reconcile ok: ${report.users} users, every balance equals its ledger sum`
      : `reconcile FAILED: ${report.mismatches.length} of ${report.users} users`,
  );
  return report.ok ? 0 : 1;
}
