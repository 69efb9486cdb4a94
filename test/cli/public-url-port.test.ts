// `serve` with PORT=0 (the OS picks the port) and no PUBLIC_URL: the links it mails (a password reset, a sign-up
// confirmation) and the front page's example name the port it is really bound to, not port 0. PUBLIC_URL, when
// set, still wins (test/console/account-password.test.ts).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import t from 'tap';

t.setTimeout(120_000);

async function waitFor<T>(what: string, fn: () => T | undefined | Promise<T | undefined>, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await Promise.resolve()
      .then(fn)
      .catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

t.test('PORT=0: mailed links and the front page name the bound port', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tollgate-port0-'));
  const env = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    PORT: '0',
    DATA_DIR: dataDir,
    REQUIRE_EMAIL_VERIFICATION: 'true',
  };
  const child: ChildProcess = spawn(
    process.execPath,
    ['--no-node-snapshot', '--import', './core/bin/load-ts.mjs', 'core/main.ts', 'serve'],
    { env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let log = '';
  child.stdout?.on('data', (b: Buffer) => (log += b.toString()));
  child.stderr?.on('data', (b: Buffer) => (log += b.toString()));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  t.teardown(async () => {
    child.kill('SIGTERM');
    await exited;
  });

  const port = await waitFor('the listening line', () => {
    const m = /listening on http:\/\/localhost:(\d+) /.exec(log);
    return m ? Number(m[1]) : undefined;
  });
  t.not(port, 0, 'the OS picked a port');
  const base = `http://127.0.0.1:${port}`;
  const post = (path: string, body: unknown) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  t.equal((await post('/console/api/register', { email: 'port0@example.com', password: 'password123' })).status, 201);
  t.equal((await post('/console/api/password/forgot', { email: 'port0@example.com' })).status, 202);

  const db = new SQLite(join(dataDir, 'tollgate.db'), { readonly: true, fileMustExist: true });
  t.teardown(() => db.close());
  const mails = await waitFor('both mails in the outbox', () => {
    const rows = db
      .prepare("SELECT subject, text_body FROM mail_outbox WHERE to_addr = 'port0@example.com' ORDER BY id")
      .all() as Array<{ subject: string; text_body: string }>;
    return rows.length === 2 ? rows : undefined;
  });
  const links = mails.map((m) => /https?:\/\/\S+\?token=/.exec(m.text_body)?.[0]);
  t.strictSame(links, [
    `http://localhost:${port}/console/verify?token=`,
    `http://localhost:${port}/console/reset?token=`,
  ]);
  t.notMatch(mails.map((m) => m.text_body).join('\n'), /localhost:0\//, 'no link says port 0');

  const front = await (await fetch(`${base}/?lang=en`)).text();
  t.match(front, `http://localhost:${port}/api/`, "the front page's example calls the bound port");
  t.notMatch(front, 'localhost:0/');
});
