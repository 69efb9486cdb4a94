// Users: creation and look-up. Balances change only through the ledger (core/billing/ledger.ts).
import type { Kysely, Selectable } from 'kysely';
import type { Database, UsersTable } from '../store/schema.js';
import { hashPassword } from './passwords.js';

export type User = Selectable<UsersTable>;

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}\.[^\s@]{2,63}$|^[^\s@]{1,64}@localhost$/;

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function isValidEmail(email: string): boolean {
  return email.length <= 254 && EMAIL.test(email);
}

export async function createUser(
  db: Kysely<Database>,
  email: string,
  password: string,
  role: 'user' | 'admin' = 'user',
): Promise<User> {
  const row = await db
    .insertInto('users')
    .values({ email: normaliseEmail(email), password_hash: await hashPassword(password), role, status: 'active', created_at: Date.now() })
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
  const row = await db.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}
