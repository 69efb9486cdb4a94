// The bench's SQLite databases: one migrated file with funded users and Pro-plan users, each with a key, and what the
// billing of a run left in it (reconcile, and the charged total against the charged successful calls). Each lives in
// a temporary folder removed when the bench process exits (~75 MB a database after a run: a few runs filled a small
// disk), unless BENCH_KEEP_DATA=1 keeps them, with the CPU profiles of `--profile`, to look at afterwards.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import { createApiKey } from '../core/accounts/api-keys.js';
import { createUser } from '../core/accounts/users.js';
import { postEntry } from '../core/billing/ledger.js';
import { reconcile } from '../core/billing/reconcile.js';
import { extendSubscription } from '../core/billing/subscriptions.js';
import { toToken } from '../core/kernel/money.js';
import { openStore } from '../core/store/database.js';
import { migrateToLatest } from '../core/store/migrate.js';
import type { Database } from '../core/store/schema.js';

export interface BenchDatabase {
  dataDir: string;
  /** The file the gateway opens in `dataDir`. */
  file: string;
  /** Keys of users with 1,000 TOKEN each, no plan. */
  keys: string[];
  /** Keys of users on the Pro plan (20,000 free calls a day, cache hits free). */
  planKeys: string[];
}

/** `passwordHash`: one scrypt (~0.25 s) shared by every bench user instead of one each: they never log in. */
export async function createBenchDatabase(users: number, passwordHash: string): Promise<BenchDatabase> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tollgate-bench-'));
  if (!process.env.BENCH_KEEP_DATA) process.once('exit', () => rmSync(dataDir, { recursive: true, force: true }));
  const store = openStore({ databaseUrl: null, dataDir });
  await migrateToLatest(store.db as never, 'sqlite');
  const keys: string[] = [];
  for (let i = 0; i < users; i++) {
    const user = await createUser(store.db, `bench${i}@example.com`, 'password123', 'user', passwordHash);
    await postEntry(store.db, { userId: user.id, amount: 1_000_000_000, kind: 'grant', ref: `bench:${i}` });
    keys.push((await createApiKey(store.db, user.id, 'bench')).secret);
  }
  const planKeys: string[] = [];
  for (let i = 0; i < users; i++) {
    const user = await createUser(store.db, `plan${i}@example.com`, 'password123', 'user', passwordHash);
    await store.db.transaction().execute((trx) => extendSubscription(trx, user.id, 'pro', 30, `bench-plan:${i}`));
    planKeys.push((await createApiKey(store.db, user.id, 'bench-plan')).secret);
  }
  await store.close();
  return { dataDir, file: join(dataDir, 'tollgate.db'), keys, planKeys };
}

/** What the billing of a run left: reconcile, and the charged total against price x charged successful calls. */
export interface BillingCheck {
  ok: boolean;
  reconciled: boolean;
  users: number;
  /** micro-TOKEN charged, in `ledgerRows` charge rows, for `successes` charged successful calls at 0.005 TOKEN. */
  charged: number;
  ledgerRows: number;
  successes: number;
  exact: boolean;
}

export async function checkBilling(db: Kysely<Database>): Promise<BillingCheck> {
  const report = await reconcile(db);
  const charges = await db
    .selectFrom('ledger')
    .select((eb) => [eb.fn.countAll<number>().as('rows'), eb.fn.sum<number>('amount').as('sum')])
    .where('kind', '=', 'charge')
    .executeTakeFirstOrThrow();
  const successes = await db
    .selectFrom('call_log')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('status', '=', 200)
    .where('charged', '>', 0)
    .executeTakeFirstOrThrow();
  const charged = -Number(charges.sum ?? 0);
  const n = Number(successes.n);
  const exact = charged === n * 5000 && Number(charges.rows) === n;
  return {
    ok: report.ok && exact,
    reconciled: report.ok,
    users: report.users,
    charged,
    ledgerRows: Number(charges.rows),
    successes: n,
    exact,
  };
}

/** The check of a bench SQLite database, as the lines the bench prints. */
export async function billingLines(dataDir: string): Promise<{ ok: boolean; lines: string[] }> {
  const store = openStore({ databaseUrl: null, dataDir });
  try {
    const c = await checkBilling(store.db);
    return {
      ok: c.ok,
      lines: [
        `reconcile: ${c.reconciled ? 'ok' : 'FAILED'} (${c.users} users)`,
        `charged: ${toToken(c.charged)} TOKEN in ${c.ledgerRows} ledger rows; ${c.successes} charged successful calls x 0.005 = ${toToken(c.successes * 5000)} TOKEN${c.exact ? '' : ' (NOT EXACT)'}`,
      ],
    };
  } finally {
    await store.close();
  }
}
