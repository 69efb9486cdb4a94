// The capture alone, in process: 32 billed captures in flight through `createMoney` on a bench database with the
// gateway's writer thread and checkpointer, each a hold, a turn's wait and a capture with its call-log row; per
// round the CPU per capture on the main thread and on the others (the writer thread, the checkpointer), and the
// captures' latency. No HTTP, plugin or load generator, so two trees compare in alternated runs on a busy machine
// (docs/performance.md "The billed row against its floor (2026-11-27, afternoon)").
//   node --no-node-snapshot --import ./core/bin/load-ts.mjs bench/capture-cpu.ts [rounds] [captures per round]
import { readFileSync } from 'node:fs';
import { hashPassword } from '../core/accounts/passwords.js';
import { newRequestId } from '../core/accounts/secrets.js';
import { createMoney } from '../core/billing/money.js';
import { createProcessLogger } from '../core/kernel/logger.js';
import { openStore } from '../core/store/database.js';
import { createBenchDatabase } from './bench-db.js';

const ROUNDS = Number(process.argv[2] ?? 5);
const PER_ROUND = Number(process.argv[3] ?? 4000);
const IN_FLIGHT = 32;
const PRICE = 5000;

const bench = await createBenchDatabase(50, await hashPassword('password123'));
const store = openStore({
  databaseUrl: null,
  dataDir: bench.dataDir,
  checkpointLogger: createProcessLogger('warn', 'json'),
});
const money = createMoney(store);
const users = (await store.db.selectFrom('users').select('id').where('balance', '>', 100_000_000).execute()).map(
  (u) => u.id,
);

/** This thread's CPU time (ns), from the kernel's per-thread accounting. */
const threadNs = (): number => Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]);
const processUs = (): number => {
  const c = process.cpuUsage();
  return c.user + c.system;
};

const latencies: number[] = [];
let next = 0;
async function capture(): Promise<void> {
  const started = performance.now();
  const userId = users[next++ % users.length];
  const id = newRequestId();
  const hold = await money.place(userId, PRICE, id, Date.now() + 60_000);
  if (!hold) throw new Error('the bench user ran out of money');
  await new Promise((r) => setImmediate(r)); // the plugin's turn
  const now = Date.now();
  await money.capture(hold, 'phone', [
    {
      request_id: id,
      user_id: userId,
      key_id: userId,
      operation: 'phone',
      status: 200,
      charged: PRICE,
      cached: 0,
      duration_ms: 3,
      plugin_ms: 2,
      ip: '127.0.0.1',
      created_at: now,
    },
  ]);
  latencies.push(performance.now() - started);
}

async function round(n: number): Promise<void> {
  let left = n;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (left-- > 0) await capture();
    }),
  );
}

const quantile = (sorted: number[], q: number): string =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))].toFixed(1);

await round(3000); // warm-up
for (let r = 0; r < ROUNDS; r++) {
  latencies.length = 0;
  const [main0, all0] = [threadNs(), processUs()];
  await round(PER_ROUND);
  const main = (threadNs() - main0) / 1000 / PER_ROUND;
  const all = (processUs() - all0) / PER_ROUND;
  const sorted = [...latencies].sort((a, b) => a - b);
  console.log(
    `round ${r + 1}: main ${main.toFixed(1)} us, other threads ${(all - main).toFixed(1)} us, all ${all.toFixed(1)} us per capture; latency p50 ${quantile(sorted, 0.5)} p99 ${quantile(sorted, 0.99)} max ${quantile(sorted, 1)} ms`,
  );
}
await store.close();
