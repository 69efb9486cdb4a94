// The group-commit function's own cost: batches of offline charges ("s" jobs, each with its call-log row) sent one
// after another to tollgate_money on a database of the bench's own, and per round the function's time per job as
// PostgreSQL counts it (pg_stat_user_functions), beside the wall time per job seen from here (the round trip and
// the commit included). One client and no gateway, so a change to the function compares in alternated runs even
// on a busy machine (docs/performance.md "The call-log rows of a batch in one statement").
//   node --no-node-snapshot --import ./core/bin/load-ts.mjs bench/money-function.ts   [ROUNDS=3 BATCHES=1500 JOBS=16]
import { PgMoneyBatch } from '../core/billing/pg-money.js';
import { reconcile } from '../core/billing/reconcile.js';
import { openStore } from '../core/store/database.js';
import { migrateToLatest } from '../core/store/migrate.js';
import { createBenchPg } from './pg-commits.js';
import { fundedUsers } from './pg-funded-users.js';

const PG_URL = process.env.BENCH_PG_URL || 'postgres://postgres@127.0.0.1:5432/test';
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const BATCHES = Number(process.env.BATCHES ?? 1500);
const JOBS = Number(process.env.JOBS ?? 16);
/** As in the bench's PostgreSQL rows: a batch's jobs are spread over this many users. */
const USERS = 16;
const PRICE = 5000;

const benchPg = await createBenchPg(PG_URL);
const open = () => openStore({ databaseUrl: benchPg.url, dataDir: '.', schema: 'public' });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The function's total time so far (ms), once all `sent` batches are counted. A backend hands its counts to
 * pg_stat_user_functions at most once a second, and its last ones only when it goes idle for long or exits, so each
 * round runs on a pool of its own, closed after it, and this waits until the calls counted are the batches sent:
 * then their time is complete too.
 */
async function functionTotals(sent: number): Promise<number> {
  for (let waited = 0; ; waited += 100) {
    const { calls, ms } = await benchPg.groupCommitStats();
    if (calls === sent) return ms;
    if (waited > 15_000) throw new Error(`${calls} of ${sent} batches counted`);
    await sleep(100);
  }
}

try {
  const setup = open();
  await migrateToLatest(setup.db as never, 'postgres');
  const users = await fundedUsers(setup.db, USERS, 'fn');
  await setup.close();
  let seq = 0;
  let sent = 0;
  let counted = 0;
  console.log(`${JOBS} charges a batch, ${BATCHES} batches a round, ${USERS} users`);
  for (let round = 1; round <= ROUNDS; round++) {
    const store = open();
    // One statement at a time: each batch is exactly JOBS jobs.
    const batch = new PgMoneyBatch(store.db, 1, JOBS);
    const started = performance.now();
    for (let b = 0; b < BATCHES; b++) {
      const at = Date.now();
      const charges = Array.from({ length: JOBS }, (_, i) => {
        const u = users[(b * JOBS + i) % USERS];
        // Time-ordered ids, as the gateway's request ids are.
        const id = `req_fn_${at.toString(36)}_${(seq++).toString(36).padStart(8, '0')}`;
        const log = [id, u, null, 'phone', 200, null, PRICE, 0, null, 1.2, 0.3, '127.0.0.1', at];
        return batch.run({ k: 's', id, u, a: PRICE, op: 'phone', rows: [log] });
      });
      for (const r of await Promise.all(charges)) if (typeof r !== 'number') throw new Error(`charge: ${r}`);
    }
    const wallMs = performance.now() - started;
    await store.close();
    sent += BATCHES;
    const total = await functionTotals(sent);
    const fnMs = total - counted;
    counted = total;
    const jobs = BATCHES * JOBS;
    const perJob = (ms: number): string => ((ms * 1000) / jobs).toFixed(1);
    console.log(`round ${round}: function ${perJob(fnMs)} us per job, wall ${perJob(wallMs)} us per job`);
  }
  const checked = open();
  const report = await reconcile(checked.db);
  await checked.close();
  if (!report.ok) throw new Error('reconcile failed');
  console.log(`reconcile ok; ${ROUNDS * BATCHES * JOBS} charges`);
} finally {
  await benchPg.drop();
}
