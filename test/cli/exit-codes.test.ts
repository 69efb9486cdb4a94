// The CLI as a process: a misspelt flag is exit 2 with a did-you-mean on stderr and creates nothing; --help is
// exit 0 on stdout; doctor without --no-node-snapshot is exit 1 and says how to run it.

import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import t from 'tap';

const dataDir = mkdtempSync(join(tmpdir(), 'tollgate-exit-'));
function cli(nodeArgs: string[], ...args: string[]): { status: number; out: string; err: string } {
  const r = spawnSync(process.execPath, [...nodeArgs, '--import', './core/bin/load-ts.mjs', 'core/main.ts', ...args], {
    env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: '', NODE_OPTIONS: '' },
    encoding: 'utf8',
  });
  return { status: r.status ?? -1, out: r.stdout, err: r.stderr };
}
const SNAP = ['--no-node-snapshot'];

t.test('user add --admn: exit 2, did-you-mean, nothing created', async (t) => {
  t.equal(cli(SNAP, 'migrate').status, 0);
  const r = cli(SNAP, 'user', 'add', '--email', 'x@example.com', '--password', 'secret123', '--admn');
  t.equal(r.status, 2);
  t.equal(r.out, '');
  t.match(
    r.err,
    /^unknown option --admn; did you mean --admin\?\nusage: tollgate <command> \[options\]/,
    'the message, then the usage',
  );
  const db = new SQLite(join(dataDir, 'tollgate.db'), { readonly: true });
  t.same(db.prepare('select count(*) as n from users').get(), { n: 0 });
  db.close();
});

t.test('--help: exit 0, the usage on stdout', async (t) => {
  const all = cli(SNAP, '--help');
  t.equal(all.status, 0);
  t.match(all.out, /^usage: tollgate <command> \[options\]/);
  t.match(all.out, /\n {2}doctor {2,}Check Node/);
  const one = cli(SNAP, 'backup', '--help');
  t.equal(one.status, 0);
  t.match(one.out, /^usage: tollgate backup <file>\n/);
});

t.test('doctor without --no-node-snapshot: exit 1, the flag named, isolates not started', async (t) => {
  const r = cli([], 'doctor');
  t.equal(r.status, 1, r.err);
  t.match(r.out, /^FAIL {2}flags {5}run node with --no-node-snapshot \(isolated-vm needs it\); npx tollgate sets it$/m);
  t.match(
    r.out,
    /^FAIL {2}native {4}better-sqlite3 ok \(SQLite [\d.]+\); isolated-vm not tried without --no-node-snapshot$/m,
  );
  t.match(r.out, /^skip {2}plugins {3}not started without --no-node-snapshot$/m);
  t.match(r.out, /^ok {4}database {2}SQLite .* reachable, \d+ migrations current$/m);
});
