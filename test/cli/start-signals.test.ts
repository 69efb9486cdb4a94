// The README's `npm start` on a fresh data directory, with no environment beyond PORT and DATA_DIR and no
// terminal: a new customer registers, makes a key and gets a 200 from /api/phone with no operator action (the
// shipped sign-up trial). Then SIGTERM to the npm process (as a supervisor sends it) stops the whole service:
// npm's shell execs the server, so the signal reaches it and nothing is left listening. The `npx tollgate`
// launcher forwards SIGTERM the same way.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';

t.setTimeout(300_000);

const freePort = (): Promise<number> =>
  new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function waitFor<T>(what: string, fn: () => Promise<T | undefined>, ms = 120_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Starts `cmd` like a supervisor would: own stdio pipes, no TTY; returns it and the server's pid (from its log). */
async function start(cmd: string, args: string[], port: number): Promise<{ child: ChildProcess; serverPid: number }> {
  const env = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    PORT: String(port),
    DATA_DIR: mkdtempSync(join(tmpdir(), 'tollgate-start-')),
  };
  const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout?.on('data', (b: Buffer) => (log += b.toString()));
  child.stderr?.on('data', (b: Buffer) => (log += b.toString()));
  await waitFor('the health check', async () =>
    (await fetch(`http://127.0.0.1:${port}/api/health`)).ok ? true : undefined,
  );
  const serverPid = Number(/"pid":(\d+)/.exec(log)?.[1]);
  return { child, serverPid };
}

async function stopWithSigterm(t: Test, child: ChildProcess, serverPid: number, port: number): Promise<void> {
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  child.kill('SIGTERM');
  await exited;
  await waitFor('the server process to end', async () => (alive(serverPid) ? undefined : true), 30_000);
  t.notOk(alive(serverPid), 'the server process is gone');
  const refused = await fetch(`http://127.0.0.1:${port}/api/health`).then(
    () => false,
    () => true,
  );
  t.ok(refused, 'nothing listens on the port any more');
}

t.test('npm start: the first customer succeeds with no operator action; SIGTERM stops everything', async (t) => {
  const port = await freePort();
  const { child, serverPid } = await start('npm', ['start'], port);
  t.teardown(() => {
    if (alive(serverPid)) process.kill(serverPid, 'SIGKILL');
  });
  t.ok(serverPid > 0 && serverPid !== child.pid, 'the server logs its own pid');
  const base = `http://127.0.0.1:${port}`;
  const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, string> };
  };
  const reg = await post('/console/api/register', { email: 'first@example.com', password: 'firstTime2026' });
  t.equal(reg.status, 201);
  const key = await post('/console/api/keys', { name: 'first' }, { authorization: `Bearer ${reg.body.token}` });
  t.equal(key.status, 201);
  const call = await fetch(`${base}/api/phone?phone=13800138000`, { headers: { 'X-API-Key': key.body.secret } });
  t.equal(call.status, 200);
  t.match(await call.json(), { success: true, deducted: 0.005, remaining: 0.995, data: { province: '北京' } });
  await stopWithSigterm(t, child, serverPid, port);
});

t.test('npx tollgate serve: the launcher forwards SIGTERM and exits with the server', async (t) => {
  const port = await freePort();
  const { child, serverPid } = await start(process.execPath, ['core/bin/tollgate.mjs', 'serve'], port);
  t.teardown(() => {
    if (alive(serverPid)) process.kill(serverPid, 'SIGKILL');
  });
  await stopWithSigterm(t, child, serverPid, port);
});
