// The CLI as an operator runs it: user add, credit, key create (secret alone on the last line), key revoke,
// reconcile (exit 0 when balances equal ledger sums, 1 when someone tampered with a balance).

import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import t from 'tap';

const dataDir = mkdtempSync(join(tmpdir(), 'tollgate-cli-'));
function cli(...args: string[]): { status: number; out: string; err: string } {
  const r = spawnSync(
    process.execPath,
    ['--no-node-snapshot', '--import', './core/bin/load-ts.mjs', 'core/main.ts', ...args],
    {
      env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '' },
      encoding: 'utf8',
    },
  );
  return { status: r.status ?? -1, out: r.stdout, err: r.stderr };
}

t.test('operator workflow', async (t) => {
  t.equal(cli('migrate').status, 0);
  const add = cli('user', 'add', '--email', 'Ops@Example.com', '--password', 'secret123', '--admin');
  t.equal(add.status, 0, add.err);
  t.match(add.out, /created admin ops@example.com/);
  t.equal(
    cli('user', 'add', '--email', 'ops@example.com', '--password', 'secret123').status,
    2,
    'a taken email is a usage error',
  );
  t.match(cli('user', 'add', '--email', 'weak@example.com', '--password', 'short').err, /at least 8 characters/);

  const credit = cli('credit', '--email', 'ops@example.com', '--amount', '12.5', '--reason', 'welcome');
  t.equal(credit.status, 0, credit.err);
  t.match(credit.out, /\+12\.5 TOKEN, balance 12\.5 TOKEN/);
  t.match(cli('credit', '--email', 'ops@example.com', '--amount', '-2.25').out, /-2\.25 TOKEN, balance 10\.25 TOKEN/);
  const over = cli('credit', '--email', 'ops@example.com', '--amount', '-100');
  t.equal(over.status, 1, 'a deduction below zero is refused');
  t.match(cli('credit', '--email', 'ops@example.com', '--amount', '0.0000001').err, /at most 6 decimals/);

  const key = cli('key', 'create', '--email', 'ops@example.com', '--name', 'ci');
  t.equal(key.status, 0, key.err);
  const lines = key.out.trim().split('\n');
  const secret = lines[lines.length - 1];
  t.match(secret, /^sk_[A-Za-z0-9_-]{43}$/, 'the secret alone on the last line');
  const revoke = cli('key', 'revoke', '--prefix', secret.slice(0, 11));
  t.equal(revoke.status, 0, revoke.err);
  t.match(revoke.out, /revoked 1 key/);
  t.equal(cli('key', 'revoke', '--prefix', 'sk_nothing').status, 2);

  const ok = cli('reconcile');
  t.equal(ok.status, 0, ok.out + ok.err);
  t.match(ok.out, /reconcile ok: 1 users/);

  const db = new SQLite(join(dataDir, 'tollgate.db'));
  db.prepare('update users set balance = balance + 1').run();
  db.close();
  const bad = cli('reconcile');
  t.equal(bad.status, 1);
  t.match(bad.out, /MISMATCH ops@example.com .*balance 10\.250001 vs ledger 10\.25/);
  t.equal(cli('frobnicate').status, 2);
});
