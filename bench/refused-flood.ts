// What a stranger's flood leaves on disk: 40,000 /api calls without a key or with a bad one and 1,000 forged 16 KiB
// payment notifications against `tollgate serve` on a fresh SQLite data directory, once with the default
// per-address budget and once with it out of the way (REFUSED_BURST=1000000: only the counting holds the disk).
// Prints the data directory's growth and the rows each table gained. Run:
//   node --no-node-snapshot --import ./core/bin/load-ts.mjs bench/refused-flood.ts
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import autocannon from 'autocannon';
import Database from 'better-sqlite3';
import { freePort, startServer, stopServer } from './processes.js';

const API_CALLS = 40_000;
const NOTIFICATIONS = 1_000;

/** Every file's size, so a write-ahead log left by a stop shows as such. */
function files(dir: string): string {
  return readdirSync(dir)
    .filter((f) => f.startsWith('tollgate.db'))
    .map((f) => `${f} ${statSync(join(dir, f)).size}`)
    .join(', ');
}

function dirBytes(dir: string): number {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true }))
    n += e.isDirectory() ? dirBytes(join(dir, e.name)) : statSync(join(dir, e.name)).size;
  return n;
}

const start = (env: Record<string, string>): Promise<ChildProcess> => startServer(['core/main.ts', 'serve'], env);

const stop = stopServer;

async function flood(port: number, amount: number, request: (i: number) => autocannon.Request) {
  let i = 0;
  const statuses: Record<string, number> = {};
  const run = autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: 16,
    amount,
    requests: [{ setupRequest: (req: autocannon.Request) => ({ ...req, ...request(i++) }) }],
  });
  run.on('response', (_c: unknown, status: number) => (statuses[status] = (statuses[status] ?? 0) + 1));
  await run;
  return statuses;
}

function rows(file: string): Record<string, number> {
  const db = new Database(file, { readonly: true });
  try {
    const count = (sql: string) => Number((db.prepare(sql).get() as { n: number }).n);
    return {
      call_log: count('select count(*) as n from call_log'),
      refused_requests: count('select count(*) as n from refused_requests'),
      refused_counted: count('select coalesce(sum(count), 0) as n from refused_requests'),
      payment_log: count('select count(*) as n from payment_log'),
      payment_log_raw_bytes: count('select coalesce(sum(length(raw)), 0) as n from payment_log'),
    };
  } finally {
    db.close();
  }
}

async function once(label: string, extraEnv: Record<string, string>): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tollgate-flood-'));
  const payments = join(dataDir, 'payments.yaml');
  writeFileSync(
    payments,
    'payments:\n  - { id: epay, kind: epay, pid: "1001", key: k, gateway: "http://127.0.0.1:9" }\n',
  );
  const port = await freePort();
  const env = {
    DATA_DIR: dataDir,
    PORT: String(port),
    OPERATIONS_FILE: resolve('operations.yaml'),
    PAYMENTS_FILE: payments,
    PUBLIC_BASE_URL: 'https://pay.example.com',
    LOG_LEVEL: 'error',
    ...extraEnv,
  };
  // The baseline: a first start (admin, demo user, schema) stopped cleanly, as the flooded run will be.
  const first = await start(env);
  await stop(first);
  const before = dirBytes(dataDir);
  const beforeFiles = files(dataDir);
  const server = await start(env);
  const api = await flood(port, API_CALLS, (i) => ({
    method: 'GET',
    path: `/api/phone?phone=13800138000&n=${i}`,
    headers: i % 2 ? { 'x-api-key': `sk_${'x'.repeat(43)}` } : ({} as Record<string, string>),
  }));
  const body = `sign=${'f'.repeat(32)}&out_trade_no=TG0000000001&pad=${'A'.repeat(16_384 - 60)}`;
  const notify = await flood(port, NOTIFICATIONS, () => ({
    method: 'POST',
    path: '/pay/notify/epay',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body,
  }));
  await stop(server); // shutdown writes what is still counted in memory
  const after = dirBytes(dataDir);
  console.log(`${label}:`);
  console.log(`  /api answers ${JSON.stringify(api)}; notify answers ${JSON.stringify(notify)}`);
  console.log(`  rows gained ${JSON.stringify(rows(join(dataDir, 'tollgate.db')))}`);
  console.log(`  data directory ${before} -> ${after} bytes: ${((after - before) / 1024).toFixed(1)} KiB`);
  console.log(`  files before: ${beforeFiles}; after: ${files(dataDir)}`);
  rmSync(dataDir, { recursive: true, force: true });
}

await once('default budget', {});
await once('budget out of the way (REFUSED_BURST=1000000)', { REFUSED_BURST: '1000000' });
