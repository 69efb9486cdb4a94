// The account canaries call as: a user no one can log in to (its password hash is not a hash), with one API key
// whose secret only the process running canaries knows. Each runner start makes a fresh key and retires the
// others, so no secret is ever stored. Its calls are free (price.ts) and its rows are marked canary, so the
// account never shows in usage, revenue, plan quotas, the admin user list or its count (accounts/system-users.ts).
import type { Kysely } from 'kysely';
import { createApiKey, deleteApiKey } from '../accounts/api-keys.js';
import { CANARY_EMAIL } from '../accounts/system-users.js';
import type { Database } from '../store/schema.js';

export { CANARY_EMAIL };

const NO_PASSWORD = '!canary-no-login';

export interface SystemKey {
  userId: number;
  keyId: number;
  secret: string;
}

export async function canaryUserId(db: Kysely<Database>): Promise<number | null> {
  const row = await db.selectFrom('users').select('id').where('email', '=', CANARY_EMAIL).executeTakeFirst();
  return row ? Number(row.id) : null;
}

export async function ensureSystemKey(db: Kysely<Database>): Promise<SystemKey> {
  let userId = await canaryUserId(db);
  if (userId === null) {
    await db
      .insertInto('users')
      .values({
        email: CANARY_EMAIL,
        password_hash: NO_PASSWORD,
        role: 'user',
        status: 'active',
        created_at: Date.now(),
      })
      .onConflict((oc) => oc.column('email').doNothing())
      .execute();
    userId = (await canaryUserId(db))!;
  }
  const { key, secret } = await createApiKey(db, userId, 'canary');
  const others = await db
    .selectFrom('api_keys')
    .select('id')
    .where('user_id', '=', userId)
    .where('id', '!=', key.id)
    .where('deleted_at', 'is', null)
    .execute();
  for (const o of others) await deleteApiKey(db, userId, Number(o.id));
  return { userId, keyId: Number(key.id), secret };
}
