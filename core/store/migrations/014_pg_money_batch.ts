// PostgreSQL only: the group-commit function of the money writes, tollgate_money (money-function.ts).
import type { Kysely } from 'kysely';
import type { MigrationContext } from './context.js';
import { createMoneyFunction } from './money-function.js';

export async function up(db: Kysely<unknown>, ctx: MigrationContext): Promise<void> {
  if (ctx.dialect !== 'postgres') return;
  await createMoneyFunction(db);
}
