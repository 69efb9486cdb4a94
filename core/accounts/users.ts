// Users: creation and look-up. Balances change only through the ledger (core/billing/ledger.ts).
import type { Kysely, Selectable } from 'kysely';
import type { Database, UsersTable } from '../store/schema.js';
import { normaliseEmail } from './emails.js';
import { hashPassword } from './passwords.js';

export { emailProblem, isValidEmail, normaliseEmail } from './emails.js';

export type User = Selectable<UsersTable>;

export async function createUser(
  db: Kysely<Database>,
  email: string,
  password: string,
  role: 'user' | 'admin' = 'user',
  /** A hash made earlier by hashPassword (tests reuse one instead of paying scrypt per user). */
  passwordHash?: string,
): Promise<User> {
  const row = await db
    .insertInto('users')
    .values({
      email: normaliseEmail(email),
      password_hash: passwordHash ?? (await hashPassword(password)),
      role,
      status: 'active',
      created_at: Date.now(),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return row;
}

export async function findUserByEmail(db: Kysely<Database>, email: string): Promise<User | undefined> {
  return db.selectFrom('users').selectAll().where('email', '=', normaliseEmail(email)).executeTakeFirst();
}

export async function findUserById(db: Kysely<Database>, id: number): Promise<User | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function countUsers(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
