// `tollgate key rotate`: the operator's way to rotate a key: new secret on the last line, the old one kept for the
// grace period, an audit row by 'system', and clear usage errors.

import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import t from 'tap';

const dataDir = mkdtempSync(join(tmpdir(), 'tollgate-rotate-'));
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
const lastLine = (out: string): string => out.trim().split('\n').at(-1) ?? '';

t.test('rotate keeps the key and its old secret for the grace period', async (t) => {
  t.equal(cli('user', 'add', '--email', 'rot@example.com', '--password', 'secret123').status, 0);
  const created = cli('key', 'create', '--email', 'rot@example.com', '--name', 'ci');
  const oldSecret = lastLine(created.out);
  const oldPrefix = oldSecret.slice(0, 11);
  const db = new SQLite(join(dataDir, 'tollgate.db'));
  const before = db.prepare('select id, name, key_hash from api_keys').get() as {
    id: number;
    name: string;
    key_hash: string;
  };

  const res = cli('key', 'rotate', '--prefix', oldPrefix, '--grace-hours', '2');
  t.equal(res.status, 0, res.err);
  const secret = lastLine(res.out);
  t.match(secret, /^sk_[A-Za-z0-9_-]{43}$/);
  t.match(res.out, new RegExp(`rotated key ${before.id} \\(${oldPrefix} -> sk_`));
  const after = db.prepare('select id, name, key_hash, prev_key_hash, prev_expires_at from api_keys').get() as {
    id: number;
    name: string;
    key_hash: string;
    prev_key_hash: string;
    prev_expires_at: number;
  };
  t.equal(after.id, before.id);
  t.equal(after.name, 'ci');
  t.equal(after.prev_key_hash, before.key_hash, 'the old secret is kept as the previous hash');
  t.not(after.key_hash, before.key_hash);
  t.ok(Math.abs(after.prev_expires_at - (Date.now() + 2 * 3600_000)) < 60_000);
  const audit = db
    .prepare("select actor_id, actor_role, action, target_id, detail from audit_log where action = 'key.rotate'")
    .all();
  t.same(audit, [
    {
      actor_id: null,
      actor_role: 'system',
      action: 'key.rotate',
      target_id: String(before.id),
      detail: JSON.stringify({ prefix: secret.slice(0, 11), grace_hours: 2, via: 'cli' }),
    },
  ]);
  db.close();

  t.equal(cli('key', 'rotate', '--prefix', 'sk_nothere0').status, 2);
  const bad = cli('key', 'rotate', '--prefix', secret.slice(0, 11), '--grace-hours', '1000');
  t.equal(bad.status, 2);
  t.match(bad.err, /--grace-hours must be an integer from 0 to 720/);
});
