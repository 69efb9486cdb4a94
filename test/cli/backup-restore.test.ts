// tollgate backup / restore on SQLite: the backup is consistent while another process keeps writing ledger rows
// (balance == sum of ledger in the copy), restore refuses what is not a Tollgate database, a database holding data
// without --force, and a running gateway; it keeps the replaced database, migrates and reconciles. PostgreSQL
// gets the pg_dump / pg_restore commands and exit 1.

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import t from 'tap';
import { UsageError } from '../../core/cli/args.js';
import { backupCommand, restoreCommand } from '../../core/cli/backup.js';
import { credit, userAdd } from '../../core/cli/commands.js';
import { readSettings } from '../../core/config/env.js';
import { openStore } from '../../core/store/database.js';
import { migrateToLatest } from '../../core/store/migrate.js';

const root = mkdtempSync(join(tmpdir(), 'tollgate-backup-'));

async function freePort(): Promise<number> {
  const s = createServer().listen(0, '127.0.0.1');
  await once(s, 'listening');
  const port = (s.address() as { port: number }).port;
  s.close();
  return port;
}

function settingsFor(dataDir: string, port: number) {
  return readSettings({ DATA_DIR: dataDir, PORT: String(port) });
}

/** A data dir with one user and a 5 TOKEN grant. */
async function seeded(name: string): Promise<string> {
  const dataDir = join(root, name);
  const store = openStore({ databaseUrl: null, dataDir });
  await migrateToLatest(store.db as never, 'sqlite');
  await userAdd(store.db, { words: [], flags: { email: 'ops@example.com', password: 'secret123' } }, () => undefined);
  await credit(store.db, { words: [], flags: { email: 'ops@example.com', amount: '5' } }, () => undefined);
  await store.close();
  return dataDir;
}

function read(file: string): { ledger: number; ledgerSum: number; balance: number } {
  const db = new SQLite(file, { readonly: true });
  try {
    const l = db.prepare('select count(*) as n, coalesce(sum(amount), 0) as s from ledger').get() as {
      n: number;
      s: number;
    };
    const u = db.prepare('select balance from users where id = 1').get() as { balance: number };
    return { ledger: l.n, ledgerSum: l.s, balance: u.balance };
  } finally {
    db.close();
  }
}

async function run(
  fn: (print: (l: string) => void) => Promise<number>,
): Promise<{ code: number | Error; lines: string[] }> {
  const lines: string[] = [];
  const code = await fn((l) => lines.push(l)).catch((err: Error) => err);
  return { code, lines };
}

// Another process posting 1-micro grants as fast as it can (each a ledger row and a balance update in one
// transaction) until the stop file appears; it prints how many it wrote.
const WRITER = `
const SQLite = require('better-sqlite3'); const fs = require('fs');
const [file, stop] = process.argv.slice(1);
const db = new SQLite(file); db.pragma('busy_timeout = 5000');
const post = db.transaction((i) => {
  const { balance } = db.prepare('select balance from users where id = 1').get();
  db.prepare("insert into ledger (user_id, amount, balance_after, kind, ref, note, created_at) values (1, 1, ?, 'grant', ?, 'writer', ?)").run(balance + 1, 'writer:' + i, Date.now());
  db.prepare('update users set balance = balance + 1 where id = 1').run();
});
let i = 0;
while (!fs.existsSync(stop)) { post(i++); if (i === 50) process.stdout.write('ready\\n'); }
db.close(); process.stdout.write('wrote ' + i + '\\n');`;

t.test('backup while another process writes: a consistent copy', async (t) => {
  const dataDir = await seeded('live');
  const live = join(dataDir, 'tollgate.db');
  const stop = join(root, 'stop-writer');
  const writer = spawn(process.execPath, ['-e', WRITER, live, stop], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  writer.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  while (!out.includes('ready')) await once(writer.stdout, 'data');
  const before = read(live).ledger;

  const dest = join(root, 'copy.db');
  const backup = await run((p) => backupCommand(settingsFor(dataDir, 1), { words: ['backup', dest], flags: {} }, p));
  writeFileSync(stop, '');
  await once(writer, 'exit');
  t.equal(backup.code, 0, backup.lines.join('\n'));
  const copy = read(dest);
  t.match(
    backup.lines[0],
    new RegExp(
      `^backup of ${live} written to ${dest}: \\d+ bytes, 1 users, ${copy.ledger} ledger entries, quick_check ok$`,
    ),
  );
  t.ok(copy.ledger >= before, `the copy has every row committed before it started (${copy.ledger} >= ${before})`);
  t.equal(copy.balance, copy.ledgerSum, 'balance equals the ledger sum inside the copy');
  const wrote = Number(/wrote (\d+)/.exec(out)?.[1]);
  const after = read(live);
  t.equal(after.ledger, 1 + wrote, 'the writer was never blocked out: every write landed');
  t.equal(after.balance, 5_000_000 + wrote);

  const again = await run((p) => backupCommand(settingsFor(dataDir, 1), { words: ['backup', dest], flags: {} }, p));
  t.ok(again.code instanceof UsageError);
  t.equal((again.code as Error).message, `${dest} exists; give a new file name`);
  const none = await run((p) =>
    backupCommand(settingsFor(join(root, 'empty'), 1), { words: ['backup', join(root, 'x.db')], flags: {} }, p),
  );
  t.equal(
    (none.code as Error).message,
    `no database at ${join(root, 'empty', 'tollgate.db')} (DATA_DIR); nothing to back up`,
  );
});

t.test('restore: checks, refusals, then replace + migrate + reconcile', async (t) => {
  const source = await seeded('source');
  const backupFile = join(root, 'source-backup.db');
  t.equal(
    (await run((p) => backupCommand(settingsFor(source, 1), { words: ['backup', backupFile], flags: {} }, p))).code,
    0,
  );
  const port = await freePort();
  const target = await seeded('target');
  const targetDb = join(target, 'tollgate.db');
  // Make the target differ from the backup: a second grant.
  const extra = openStore({ databaseUrl: null, dataDir: target });
  await credit(extra.db, { words: [], flags: { email: 'ops@example.com', amount: '1' } }, () => undefined);
  await extra.close();
  t.same(read(targetDb), { ledger: 2, ledgerSum: 6_000_000, balance: 6_000_000 });

  const restore = (file: string, force: boolean, p = port) =>
    run((print) =>
      restoreCommand(settingsFor(target, p), { words: ['restore', file], flags: force ? { force: true } : {} }, print),
    );
  const refused = async (file: string, force: boolean, message: string | RegExp, p = port) => {
    const r = await restore(file, force, p);
    t.ok(r.code instanceof UsageError, `refused: ${String(message)}`);
    t.match((r.code as Error).message, message);
    t.same(read(targetDb), { ledger: 2, ledgerSum: 6_000_000, balance: 6_000_000 }, 'target unchanged');
  };

  const text = join(root, 'notes.txt');
  writeFileSync(text, 'not a database at all, just some text that is long enough to look like a header');
  await refused(text, true, `${text}: not a SQLite database (file is not a database); nothing changed`);
  const foreign = join(root, 'foreign.db');
  new SQLite(foreign).exec('create table users (id integer)').close();
  await refused(
    foreign,
    true,
    `${foreign}: not a Tollgate database (no kysely_migration, ledger, api_keys table); nothing changed`,
  );
  await refused(join(root, 'missing.db'), true, `cannot read ${join(root, 'missing.db')}: no such file`);
  await refused(
    backupFile,
    false,
    `${targetDb} holds data (1 users); pass --force to replace it (it is kept as a .before-restore copy)`,
  );

  const gateway = createServer((_, res) => res.end('{"ok":true}')).listen(0, '127.0.0.1');
  await once(gateway, 'listening');
  await refused(
    backupFile,
    true,
    `a gateway answers on port ${(gateway.address() as { port: number }).port}; stop it before restoring`,
    (gateway.address() as { port: number }).port,
  );
  gateway.close();

  const ok = await restore(backupFile, true);
  t.equal(ok.code, 0, ok.lines.join('\n'));
  t.match(ok.lines[0], /^the replaced database is kept as .*tollgate\.db\.before-restore-\d{4}-\d\d-\d\dT/);
  t.same(ok.lines.slice(1), [
    `restored ${backupFile} to ${targetDb}; migrations current`,
    'reconcile ok: 1 users, every balance equals its ledger sum',
  ]);
  t.same(read(targetDb), { ledger: 1, ledgerSum: 5_000_000, balance: 5_000_000 }, 'the backup is live');
  const kept = readdirSync(target).filter((f) => f.startsWith('tollgate.db.before-restore-'));
  t.equal(kept.length, 1);
  t.same(
    read(join(target, kept[0])),
    { ledger: 2, ledgerSum: 6_000_000, balance: 6_000_000 },
    'the replaced database is kept whole',
  );
  t.notOk(existsSync(`${targetDb}.restoring`));
});

t.test('restore into an empty data dir needs no --force; a tampered backup fails reconcile', async (t) => {
  const source = await seeded('tamper');
  new SQLite(join(source, 'tollgate.db')).exec('update users set balance = balance + 7').close();
  const file = join(root, 'tampered.db');
  t.equal((await run((p) => backupCommand(settingsFor(source, 1), { words: ['backup', file], flags: {} }, p))).code, 0);
  const fresh = join(root, 'fresh', 'data');
  const r = await run((p) => restoreCommand(settingsFor(fresh, 1), { words: ['restore', file], flags: {} }, p));
  t.equal(r.code, 1, 'restored, but the reconcile fails');
  t.same(r.lines, [
    `restored ${file} to ${join(fresh, 'tollgate.db')}; migrations current`,
    'MISMATCH ops@example.com (id 1): balance 5.000007 vs ledger 5; held 0 vs holds 0',
    'reconcile FAILED: 1 of 1 users',
  ]);
});

t.test('PostgreSQL: the pg_dump / pg_restore commands, exit 1, no URL printed', async (t) => {
  const settings = readSettings({ DATABASE_URL: 'postgres://tollgate:s3cret@db:5432/tollgate', DATABASE_SCHEMA: 'gw' });
  const b = await run((p) => backupCommand(settings, { words: ['backup', '/backups/t.dump'], flags: {} }, p));
  t.equal(b.code, 1);
  t.same(b.lines, [
    'PostgreSQL: Tollgate does not copy a PostgreSQL database itself; use pg_dump (consistent while serving):',
    '  pg_dump --format=custom --schema=gw --file=/backups/t.dump "$DATABASE_URL"',
  ]);
  const r = await run((p) => restoreCommand(settings, { words: ['restore', '/backups/t.dump'], flags: {} }, p));
  t.equal(r.code, 1);
  t.match(
    r.lines.join('\n'),
    'pg_restore --clean --if-exists --no-owner --schema=gw --dbname="$DATABASE_URL" /backups/t.dump',
  );
  t.notMatch([...b.lines, ...r.lines].join('\n'), 's3cret');
});
