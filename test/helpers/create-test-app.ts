// createTestApp: the production wiring (composeServices + createApp) on a SQLite file in a temporary directory, the
// test plugins and fake DNS, plus shortcuts to make users with keys and read their money back.
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type Koa from 'koa';
import { createApiKey, type KeyLimits } from '../../core/accounts/api-keys.js';
import { hashPassword } from '../../core/accounts/passwords.js';
import { createUser } from '../../core/accounts/users.js';
import { createApp } from '../../core/app.js';
import { balanceOf, postEntry } from '../../core/billing/ledger.js';
import { reconcile } from '../../core/billing/reconcile.js';
import { closeServices, composeServices } from '../../core/compose.js';
import { readSettings, type Settings } from '../../core/config/env.js';
import { readPaymentSettings } from '../../core/config/payment-env.js';
import { createMemoryLogger } from '../../core/kernel/logger.js';
import { toMicro } from '../../core/kernel/money.js';
import type { Services } from '../../core/services.js';
import type { SharedState } from '../../core/state/shared-state.js';
import { openTestBackend } from '../scale/backend.js';
import { startClient, type TestClient } from './http.js';

export interface TestAppOptions {
  /** operations.yaml text; default test/fixtures/operations.test.yaml */
  operationsYaml?: string;
  /** Use this file in place (for hot-reload tests); otherwise a temp copy is used. */
  operationsFile?: string;
  pluginDirs?: string[];
  settings?: Partial<Settings>;
  dns?: Record<string, string[]>;
  watch?: boolean;
  state?: SharedState;
}

export interface TestApp {
  app: Koa;
  services: Services;
  client: TestClient;
  logs: Array<Record<string, unknown>>;
  /** A user with `balance` TOKEN (as a grant ledger row) and one key. */
  user(
    balance: number | string,
    limits?: KeyLimits & { email?: string },
  ): Promise<{ userId: number; key: string; keyId: number; email: string }>;
  balance(userId: number): Promise<{ balance: number; held: number }>;
  ledger(
    userId: number,
  ): Promise<Array<{ amount: number; kind: string; ref: string; balance_after: number; operation: string | null }>>;
  callLog(userId?: number): Promise<Array<Record<string, unknown>>>;
  /** Throws when any balance differs from its ledger sum or any held from its holds. */
  assertReconciled(): Promise<void>;
  close(): Promise<void>;
}

let seq = 0;
let passwordHash: Promise<string> | undefined;
/** One scrypt hash of 'password123' per test process: OWASP-strength scrypt costs ~0.25 s per user otherwise. */
export const testPasswordHash = (): Promise<string> => (passwordHash ??= hashPassword('password123'));

export async function createTestApp(opts: TestAppOptions = {}): Promise<TestApp> {
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-test-'));
  let operationsFile = opts.operationsFile;
  if (!operationsFile) {
    operationsFile = join(dir, 'operations.yaml');
    if (opts.operationsYaml) writeFileSync(operationsFile, opts.operationsYaml);
    else copyFileSync(resolve('test/fixtures/operations.test.yaml'), operationsFile);
  }
  // TOLLGATE_TEST_BACKEND=pg-redis: a fresh PostgreSQL schema and Redis prefix instead of SQLite + memory.
  const backend = await openTestBackend();
  const settings: Settings = {
    ...readSettings({}),
    dataDir: dir,
    operationsFile,
    sandboxPoolSize: 2,
    ...backend?.settings,
    ...opts.settings,
  };
  const logger = createMemoryLogger('debug');
  const services = await composeServices(settings, {
    logger,
    // A file, as in production: the gateway's writer thread and checkpoints run only on one (core/store/writer-thread.ts).
    sqliteFile: 'tollgate.db',
    pluginDirs: opts.pluginDirs ?? [resolve('plugins'), resolve('test/fixtures/plugins')],
    resolver: async (host) => opts.dns?.[host] ?? ['93.184.216.34'],
    watchOperations: opts.watch ?? false,
    state: opts.state,
  }).catch(async (err: unknown) => {
    await backend?.close();
    throw err;
  });
  const app = createApp(services);
  const client = await startClient(app);
  const db = services.store.db;
  return {
    app,
    services,
    client,
    logs: logger.lines,
    async user(balance, limits = {}) {
      const { email = `user${++seq}-${Date.now()}@example.com`, ...keyLimits } = limits;
      const user = await createUser(db, email, 'password123', 'user', await testPasswordHash());
      const micro = toMicro(balance);
      if (micro > 0)
        await postEntry(db, { userId: user.id, amount: micro, kind: 'grant', ref: `test-grant:${user.id}` });
      const { key, secret } = await createApiKey(db, user.id, 'test', keyLimits);
      return { userId: user.id, key: secret, keyId: key.id, email: user.email };
    },
    balance: (userId) => balanceOf(db, userId),
    async ledger(userId) {
      const rows = await db
        .selectFrom('ledger')
        .select(['amount', 'kind', 'ref', 'balance_after', 'operation'])
        .where('user_id', '=', userId)
        .orderBy('id')
        .execute();
      return rows.map((r) => ({ ...r, amount: Number(r.amount), balance_after: Number(r.balance_after) }));
    },
    async callLog(userId) {
      await services.callLog.flush();
      let q = db.selectFrom('call_log').selectAll().orderBy('id');
      if (userId !== undefined) q = q.where('user_id', '=', userId);
      return (await q.execute()) as Array<Record<string, unknown>>;
    },
    async assertReconciled() {
      const report = await reconcile(db);
      if (!report.ok) throw new Error(`reconcile failed: ${JSON.stringify(report.mismatches)}`);
    },
    async close() {
      await client.close();
      await closeServices(services);
      await backend?.close();
    },
  };
}

/**
 * The app as shipped (operations.yaml, the plugins, the default payment settings) for the browser journeys; no
 * payment sweeper, and `trialCreditMicro` when the journey starts with the sign-up credit.
 */
export function createShippedApp(trialCreditMicro?: number): Promise<TestApp> {
  const payments = { ...readPaymentSettings({}), sweepSeconds: 0 };
  return createTestApp({
    operationsYaml: readFileSync('operations.yaml', 'utf8'),
    pluginDirs: [resolve('plugins')],
    settings: { payments: trialCreditMicro === undefined ? payments : { ...payments, trialCreditMicro } },
  });
}
