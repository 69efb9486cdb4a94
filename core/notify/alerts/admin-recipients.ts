// Who hears of what needs an operator (an operation broken, an upstream disabled): every active admin.
import type { Kysely } from 'kysely';
import type { Database } from '../../store/schema.js';

export async function activeAdminEmails(db: Kysely<Database>): Promise<string[]> {
  const rows = await db
    .selectFrom('users')
    .select('email')
    .where('role', '=', 'admin')
    .where('status', '=', 'active')
    .execute();
  return rows.map((r) => r.email);
}
