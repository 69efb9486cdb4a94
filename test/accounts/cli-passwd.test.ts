// `tollgate user passwd`: set or generate a password (printed once), sessions end, optional 2FA reset.

import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { verifyPassword } from '../../core/accounts/passwords.js';
import { checkUserToken, issueUserToken } from '../../core/accounts/user-tokens.js';
import { openStore } from '../../core/store/database.js';

const dataDir = mkdtempSync(join(tmpdir(), 'tollgate-passwd-'));
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

t.test('user passwd', async (t) => {
  t.equal(cli('user', 'add', '--email', 'ops@example.com', '--password', 'secret123').status, 0);
  const store = openStore({ databaseUrl: null, dataDir, sqliteFile: 'tollgate.db' });
  t.teardown(() => store.close());
  const user = await store.db.selectFrom('users').selectAll().executeTakeFirstOrThrow();
  const session = await issueUserToken(store.db, Number(user.id), 24);
  await store.db
    .insertInto('user_security')
    .values({ user_id: Number(user.id), totp_secret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP', totp_enabled_at: 1 })
    .execute();

  const set = cli('user', 'passwd', '--email', 'OPS@example.com', '--password', 'newsecret456');
  t.equal(set.status, 0, set.err);
  t.match(set.out, 'password of ops@example.com changed; 1 console session(s) signed out');
  const row = await store.db.selectFrom('users').select('password_hash').executeTakeFirstOrThrow();
  t.ok(await verifyPassword('newsecret456', row.password_hash));
  t.same(await checkUserToken(store.db, session.token), { ok: false, reason: 'revoked' });

  const gen = cli('user', 'passwd', '--email', 'ops@example.com', '--reset-2fa');
  t.equal(gen.status, 0, gen.err);
  const lines = gen.out.trim().split('\n');
  t.match(lines[0], 'two-factor authentication turned off for ops@example.com');
  t.equal(lines[lines.length - 2], 'the new password is shown once:');
  const generated = lines[lines.length - 1];
  t.match(generated, /^[A-Za-z0-9]{16}$/);
  const row2 = await store.db.selectFrom('users').select('password_hash').executeTakeFirstOrThrow();
  t.ok(await verifyPassword(generated, row2.password_hash));
  const sec = await store.db.selectFrom('user_security').selectAll().executeTakeFirstOrThrow();
  t.equal(sec.totp_secret, null);

  t.equal(cli('user', 'passwd', '--email', 'nobody@example.com').status, 2);
  const weak = cli('user', 'passwd', '--email', 'ops@example.com', '--password', 'short');
  t.equal(weak.status, 2);
  t.match(weak.err, /at least 8 characters/);
});
