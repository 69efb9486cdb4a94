// What one PostgreSQL does under N gateway workers and M users (docs/scaling.md): each simulated worker has its own
// connection pool and group committer (core/billing/pg-money.ts) and 32 callers, each call a hold, 1 ms standing in
// for the plugin, then a capture with its call-log row; users drawn uniformly from M. No HTTP, Redis or sandbox:
// only the money writes a billed call makes, so the rows show what the database allows. `per call` runs the same
// with one job per statement (a commit each, as before group commit). Workers share this process's event loop.
//   node --no-node-snapshot --import ./core/bin/load-ts.mjs bench/scale-sim.ts   [SIM_SECONDS=4]
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { PgMoneyBatch } from '../core/billing/pg-money.js';
import { reconcile } from '../core/billing/reconcile.js';
import { openStore, type Store } from '../core/store/database.js';
import { migrateToLatest } from '../core/store/migrate.js';
import { fundedUsers } from './pg-funded-users.js';

const PG_URL = process.env.BENCH_PG_URL || 'postgres://postgres@127.0.0.1:5432/test';
const SECONDS = Number(process.env.SIM_SECONDS ?? 4);
const CALLERS = 32;
const PRICE = 5000;
const schema = `sim_${randomBytes(4).toString('hex')}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function seed(store: Store, users: number): Promise<number[]> {
  await sql`delete from call_log; delete from ledger; delete from holds; delete from users`.execute(store.db);
  return fundedUsers(store.db, users, 'sim');
}

interface Row {
  workers: number;
  users: number;
  mode: string;
  calls: number;
  commits: number;
  p99: number;
}

async function run(workers: number, users: number, perCall: boolean): Promise<Row> {
  const admin = openStore({ databaseUrl: PG_URL, dataDir: '.', schema });
  const ids = await seed(admin, users);
  const stores = Array.from({ length: workers }, () => openStore({ databaseUrl: PG_URL, dataDir: '.', schema }));
  // Per call: one job per statement and as many statements at the database as callers, each its own commit.
  const batches = stores.map((s) => (perCall ? new PgMoneyBatch(s.db, CALLERS, 1) : new PgMoneyBatch(s.db)));
  const latencies: number[] = [];
  let seq = 0;
  let stop = false;
  const caller = async (batch: PgMoneyBatch): Promise<void> => {
    while (!stop) {
      const started = performance.now();
      const id = `req_sim_${seq++}`;
      const u = ids[Math.floor(Math.random() * ids.length)];
      if ((await batch.run({ k: 'h', id, u, a: PRICE, e: Date.now() + 60_000 })) !== true) throw new Error('no hold');
      await sleep(1);
      const row = [id, u, null, 'phone', 200, null, PRICE, 0, null, 1, null, '127.0.0.1', Date.now()];
      if (typeof (await batch.run({ k: 'c', id, u, op: 'phone', rows: [row] })) !== 'number')
        throw new Error('capture');
      latencies.push(performance.now() - started);
    }
  };
  const running = batches.flatMap((b) => Array.from({ length: CALLERS }, () => caller(b)));
  await sleep(500); // warm-up: connections, prepared statements
  const from = { calls: latencies.length, commits: batches.reduce((n, b) => n + b.counts.batches, 0) };
  const measuredFrom = latencies.length;
  await sleep(SECONDS * 1000);
  const calls = latencies.length - from.calls;
  const commits = batches.reduce((n, b) => n + b.counts.batches, 0) - from.commits;
  const measured = latencies.slice(measuredFrom).sort((a, b) => a - b);
  stop = true;
  await Promise.all(running);
  const report = await reconcile(admin.db);
  if (!report.ok) throw new Error('reconcile failed');
  await Promise.all([...stores, admin].map((s) => s.close()));
  return {
    workers,
    users,
    mode: perCall ? 'per call' : 'group',
    calls: calls / SECONDS,
    commits: commits / SECONDS,
    p99: measured[Math.floor(measured.length * 0.99)] ?? 0,
  };
}

const setup = openStore({ databaseUrl: PG_URL, dataDir: '.', schema });
await migrateToLatest(setup.db as never, 'postgres');
await setup.close();
try {
  console.log('workers  users  commit     calls/s  commits/s  commits/call  p99 ms   (reconcile exact after each)');
  const plan: Array<[number, number, boolean]> = [
    [1, 16, true],
    [1, 16, false],
    [2, 16, false],
    [4, 16, false],
    [8, 16, false],
    [4, 1000, true],
    [4, 1000, false],
    [8, 1000, false],
  ];
  for (const [w, u, perCall] of plan) {
    const r = await run(w, u, perCall);
    console.log(
      `${String(r.workers).padStart(7)}  ${String(r.users).padStart(5)}  ${r.mode.padEnd(8)}  ${r.calls.toFixed(0).padStart(8)}  ${r.commits.toFixed(0).padStart(9)}  ${(r.commits / r.calls).toFixed(3).padStart(12)}  ${r.p99.toFixed(0).padStart(6)}`,
    );
  }
} finally {
  const drop = openStore({ databaseUrl: PG_URL, dataDir: '.' });
  await sql.raw(`drop schema if exists "${schema}" cascade`).execute(drop.db);
  await drop.close();
}
