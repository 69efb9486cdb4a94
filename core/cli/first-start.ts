// First start: an admin and a demo user with 10 TOKEN and a demo key, so `npm start` is immediately usable.
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { createApiKey } from '../accounts/api-keys.js';
import { countUsers, createUser } from '../accounts/users.js';
import { postEntry } from '../billing/ledger.js';
import { toMicro } from '../kernel/money.js';
import type { Database } from '../store/schema.js';

export interface BootstrapResult {
  adminEmail: string;
  adminPassword: string;
  demoEmail: string;
  demoPassword: string;
  demoKey: string;
}

function password(): string {
  return `${randomBytes(9).toString('base64url')}7a`;
}

/** Returns null when the database already has users (not a first start). */
export async function bootstrapFirstStart(
  db: Kysely<Database>,
  env: NodeJS.ProcessEnv = process.env,
): Promise<BootstrapResult | null> {
  if ((await countUsers(db)) > 0) return null;
  try {
    return await createFirstUsers(db, env);
  } catch (err) {
    // Several processes starting on one empty database race here; the unique email lets exactly one win.
    if ((await countUsers(db)) > 0) return null;
    throw err;
  }
}

async function createFirstUsers(db: Kysely<Database>, env: NodeJS.ProcessEnv): Promise<BootstrapResult> {
  const adminEmail = env.ADMIN_EMAIL || 'admin@localhost';
  const adminPassword = env.ADMIN_PASSWORD || password();
  const demoEmail = 'demo@localhost';
  const demoPassword = password();
  await createUser(db, adminEmail, adminPassword, 'admin');
  const demo = await createUser(db, demoEmail, demoPassword, 'user');
  await postEntry(db, {
    userId: demo.id,
    amount: toMicro(10),
    kind: 'grant',
    ref: 'bootstrap:demo-grant',
    note: 'demo user starting balance',
  });
  const { secret } = await createApiKey(db, demo.id, 'demo');
  return { adminEmail, adminPassword, demoEmail, demoPassword, demoKey: secret };
}
